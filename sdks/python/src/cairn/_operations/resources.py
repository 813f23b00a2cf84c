"""What sandboxes are made from: custom images, volumes, secrets and MCP connections."""

from __future__ import annotations

from typing import List, Sequence

from .._core import Call, segment
from .._generated_types import DEFAULT_CREATE_SANDBOX_IMAGE_BASE
from ..models import Image, ImageCreated, McpConnection, Secret, Volume, VolumeCreated


def create_image(
    *,
    label: str | None = None,
    base: str = DEFAULT_CREATE_SANDBOX_IMAGE_BASE,
    python_packages: Sequence[str] = (),
    apt_packages: Sequence[str] = (),
    npm_packages: Sequence[str] = (),
) -> Call[ImageCreated]:
    """Queues a declarative image build; packages are pinned as ``name==version``."""
    body = {
        "label": label,
        "base": base,
        "python_packages": list(python_packages),
        "apt_packages": list(apt_packages),
        "npm_packages": list(npm_packages),
    }
    return Call("POST", "/v1/images", body=body, has_body=True)


def get_image(image_id: str) -> Call[Image]:
    return Call("GET", f"/v1/images/{segment(image_id)}")


def list_images() -> Call[List[Image]]:
    return Call("GET", "/v1/images")


def delete_image(image_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/images/{segment(image_id)}")


def create_volume(size_gb: float, *, label: str | None = None) -> Call[VolumeCreated]:
    """Queues a persistent volume to mount into sandboxes with ``volume_mounts``."""
    return Call("POST", "/v1/volumes", body={"size_gb": size_gb, "label": label}, has_body=True)


def get_volume(volume_id: str) -> Call[Volume]:
    return Call("GET", f"/v1/volumes/{segment(volume_id)}")


def list_volumes() -> Call[List[Volume]]:
    return Call("GET", "/v1/volumes")


def delete_volume(volume_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/volumes/{segment(volume_id)}")


def create_secret(name: str, value: str, *, allowed_hosts: Sequence[str]) -> Call[Secret]:
    """A write-only secret the HTTP broker substitutes for ``{{secret:name}}`` toward ``allowed_hosts``."""
    body = {"name": name, "value": value, "allowed_hosts": list(allowed_hosts)}
    return Call("POST", "/v1/secrets", body=body, has_body=True)


def list_secrets() -> Call[List[Secret]]:
    return Call("GET", "/v1/secrets")


def delete_secret(secret_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/secrets/{segment(secret_id)}")


def create_mcp_connection(label: str, catalog_id: str) -> Call[McpConnection]:
    """A named grant that widens a sandbox's egress to a catalog MCP host."""
    return Call("POST", "/v1/mcp-connections", body={"label": label, "catalog_id": catalog_id}, has_body=True)


def list_mcp_connections() -> Call[List[McpConnection]]:
    return Call("GET", "/v1/mcp-connections")


def delete_mcp_connection(connection_id: str) -> Call[None]:
    return Call("DELETE", f"/v1/mcp-connections/{segment(connection_id)}")
