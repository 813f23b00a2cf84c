// Typed shapes of the account's resources that sandboxes use: custom images, volumes, secrets
// and MCP connections.
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

// ImageCreated is a queued build ("completed" at once when the same spec was built lately).
type ImageCreated struct {
	ID        string  `json:"id"`
	Label     *string `json:"label"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"created_at"`
}

// Image is a custom image and its build's state (queued, building, completed, failed).
type Image struct {
	ID             string   `json:"id"`
	Label          *string  `json:"label"`
	Base           string   `json:"base"`
	PythonPackages []string `json:"python_packages"`
	AptPackages    []string `json:"apt_packages"`
	NPMPackages    []string `json:"npm_packages"`
	Status         string   `json:"status"`
	Digest         *string  `json:"digest"`
	RegistryRef    *string  `json:"registry_ref"`
	FailureReason  *string  `json:"failure_reason"`
	BuildLogTail   *string  `json:"build_log_tail"`
	CreatedAt      string   `json:"created_at"`
	CompletedAt    *string  `json:"completed_at"`
}

// CreateVolumeRequest is a persistent disk of SizeGB (required, > 0, ≤ 1024).
type CreateVolumeRequest struct {
	Label  string  `json:"label,omitempty"`
	SizeGB float64 `json:"size_gb"`
}

// VolumeCreated is a queued volume.
type VolumeCreated struct {
	ID        string  `json:"id"`
	Label     *string `json:"label"`
	Status    string  `json:"status"`
	CreatedAt string  `json:"created_at"`
}

// Volume is a volume and its state (queued, creating, ready, failed, deleting).
type Volume struct {
	ID            string  `json:"id"`
	Label         *string `json:"label"`
	SizeGB        float64 `json:"size_gb"`
	Status        string  `json:"status"`
	PVCName       *string `json:"pvc_name"`
	UsedBytes     *int64  `json:"used_bytes"`
	FailureReason *string `json:"failure_reason"`
	CreatedAt     string  `json:"created_at"`
}

// CreateSecretRequest stores a secret the HTTP broker may send to AllowedHosts only.
type CreateSecretRequest struct {
	Name         string   `json:"name"`
	Value        string   `json:"value"`
	AllowedHosts []string `json:"allowed_hosts"`
}

// Secret is a stored secret; its value is never returned.
type Secret struct {
	ID           string   `json:"id"`
	Name         string   `json:"name"`
	AllowedHosts []string `json:"allowed_hosts"`
	CreatedAt    string   `json:"created_at"`
	LastUsedAt   *string  `json:"last_used_at"`
}

// CreateMCPConnectionRequest grants sandboxes that name Label egress to a catalog host.
type CreateMCPConnectionRequest struct {
	Label string `json:"label"`
	// CatalogID is one of the operator's catalog (by default slack, notion, linear, github).
	CatalogID string `json:"catalog_id"`
}

// MCPConnection is a named egress grant.
type MCPConnection struct {
	ID         string  `json:"id"`
	Label      string  `json:"label"`
	CatalogID  string  `json:"catalog_id"`
	Host       string  `json:"host"`
	CreatedAt  string  `json:"created_at"`
	LastUsedAt *string `json:"last_used_at"`
}
