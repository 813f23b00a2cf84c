"""Cairn's memory model server: an OpenAI-compatible embeddings endpoint over ONNX Runtime."""
