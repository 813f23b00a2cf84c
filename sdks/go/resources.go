// Methods for the account's resources that sandboxes use: custom images, volumes, secrets and
// MCP connections.
package cairn

import "context"

func (c *Client) get(ctx context.Context, path string, result any) error {
	return c.send(ctx, call{method: "GET", path: path}, result)
}

// getList decodes a JSON array answer.
func getList[T any](ctx context.Context, c *Client, path string) ([]T, error) {
	var result []T
	if err := c.get(ctx, path, &result); err != nil {
		return nil, err
	}
	return result, nil
}

func (c *Client) delete(ctx context.Context, path string) error {
	return c.send(ctx, call{method: "DELETE", path: path}, nil)
}

// CreateImage queues a custom image build; pass its id as CreateSandboxRequest.ImageID once
// GetImage reports "completed".
func (c *Client) CreateImage(ctx context.Context, request CreateImageRequest) (*ImageCreated, error) {
	if request.Base == "" {
		request.Base = defaultCreateSandboxImageBase
	}
	for _, list := range []*[]string{&request.PythonPackages, &request.AptPackages, &request.NPMPackages} {
		if *list == nil {
			*list = []string{}
		}
	}
	var result ImageCreated
	return done(&result, c.post(ctx, "/v1/images", request, &result))
}

// GetImage returns an image and its build's state.
func (c *Client) GetImage(ctx context.Context, imageID string) (*Image, error) {
	var result Image
	return done(&result, c.get(ctx, "/v1/images/"+segment(imageID), &result))
}

// ListImages lists the account's images.
func (c *Client) ListImages(ctx context.Context) ([]Image, error) {
	return getList[Image](ctx, c, "/v1/images")
}

// DeleteImage deletes an image.
func (c *Client) DeleteImage(ctx context.Context, imageID string) error {
	return c.delete(ctx, "/v1/images/"+segment(imageID))
}

// CreateVolume queues a persistent volume; mount it with CreateSandboxRequest.VolumeMounts
// once GetVolume reports "ready".
func (c *Client) CreateVolume(ctx context.Context, request CreateVolumeRequest) (*VolumeCreated, error) {
	var result VolumeCreated
	return done(&result, c.post(ctx, "/v1/volumes", request, &result))
}

// GetVolume returns a volume and its state.
func (c *Client) GetVolume(ctx context.Context, volumeID string) (*Volume, error) {
	var result Volume
	return done(&result, c.get(ctx, "/v1/volumes/"+segment(volumeID), &result))
}

// ListVolumes lists the account's volumes.
func (c *Client) ListVolumes(ctx context.Context) ([]Volume, error) {
	return getList[Volume](ctx, c, "/v1/volumes")
}

// DeleteVolume deletes a volume and its data (409 volume_in_use while mounted).
func (c *Client) DeleteVolume(ctx context.Context, volumeID string) error {
	return c.delete(ctx, "/v1/volumes/"+segment(volumeID))
}

// CreateSecret stores a secret for the HTTP broker; its value is never returned.
func (c *Client) CreateSecret(ctx context.Context, request CreateSecretRequest) (*Secret, error) {
	if request.AllowedHosts == nil {
		request.AllowedHosts = []string{}
	}
	var result Secret
	return done(&result, c.post(ctx, "/v1/secrets", request, &result))
}

// ListSecrets lists the account's secrets, without values.
func (c *Client) ListSecrets(ctx context.Context) ([]Secret, error) {
	return getList[Secret](ctx, c, "/v1/secrets")
}

// DeleteSecret deletes a secret.
func (c *Client) DeleteSecret(ctx context.Context, secretID string) error {
	return c.delete(ctx, "/v1/secrets/"+segment(secretID))
}

// CreateMCPConnection grants egress to a catalog host for sandboxes naming its label.
func (c *Client) CreateMCPConnection(ctx context.Context, request CreateMCPConnectionRequest) (*MCPConnection, error) {
	var result MCPConnection
	return done(&result, c.post(ctx, "/v1/mcp-connections", request, &result))
}

// ListMCPConnections lists the account's MCP connections.
func (c *Client) ListMCPConnections(ctx context.Context) ([]MCPConnection, error) {
	return getList[MCPConnection](ctx, c, "/v1/mcp-connections")
}

// DeleteMCPConnection deletes an MCP connection.
func (c *Client) DeleteMCPConnection(ctx context.Context, connectionID string) error {
	return c.delete(ctx, "/v1/mcp-connections/"+segment(connectionID))
}
