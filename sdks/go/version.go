// The SDK's version: the one place it is written. Go modules are released by git tag
// (sdks/go/v0.1.0), and the tag must equal this constant.
package cairn

// Version is this SDK's release; it is also sent in the User-Agent header.
const Version = "0.1.0"
