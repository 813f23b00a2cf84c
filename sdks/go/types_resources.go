// What the routes of the account's resources that sandboxes use take: custom images, volumes,
// secrets and MCP connections. What they answer is in types_generated.go.
package cairn

// CreateImageRequest is a declarative image: one approved base plus exact-pinned packages
// ("name==version"; npm may be "@scope/name==version").
type CreateImageRequest struct {
	Label string `json:"label,omitempty"`
	// Base defaults to "default".
	Base           string   `json:"base"`
	PythonPackages []string `json:"python_packages"`
	AptPackages    []string `json:"apt_packages"`
	NPMPackages    []string `json:"npm_packages"`
}

// CreateVolumeRequest is a persistent disk of SizeGB (required, > 0, ≤ 1024).
type CreateVolumeRequest struct {
	Label  string  `json:"label,omitempty"`
	SizeGB float64 `json:"size_gb"`
}

// CreateSecretRequest stores a secret the HTTP broker may send to AllowedHosts only.
type CreateSecretRequest struct {
	Name         string   `json:"name"`
	Value        string   `json:"value"`
	AllowedHosts []string `json:"allowed_hosts"`
}

// CreateMCPConnectionRequest grants sandboxes that name Label egress to a catalog host.
type CreateMCPConnectionRequest struct {
	Label string `json:"label"`
	// CatalogID is one of the operator's catalog (by default slack, notion, linear, github).
	CatalogID string `json:"catalog_id"`
}
