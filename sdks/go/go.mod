module github.com/cairn-dev/cairn/sdks/go

go 1.22
