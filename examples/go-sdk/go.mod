module github.com/cairn-dev/cairn/examples/go-sdk

go 1.22

require github.com/cairn-dev/cairn/sdks/go v0.1.0

// This example builds against the SDK in this repository, not a published copy.
replace github.com/cairn-dev/cairn/sdks/go => ../../sdks/go
