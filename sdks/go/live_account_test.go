// Account and resource routes against a live server: login, keys, whoami, usage, the
// allowlist in both rule forms, images, volumes, secrets and MCP connections.
package cairn_test

import (
	"testing"

	cairn "github.com/cairn-dev/cairn/sdks/go"
)

func TestLiveAccountAndKeys(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	anonymous := newClient(t, account.baseURL, "")

	login, err := anonymous.Login(ctx, account.email, account.password)
	noError(t, err)
	if login.TokenType != "bearer" || login.ExpiresIn <= 0 || login.Account.Email != account.email {
		t.Fatalf("login: %+v", login)
	}
	whoami, err := account.client.Account(ctx)
	noError(t, err)
	if whoami.ID != login.Account.ID {
		t.Fatalf("whoami %+v is not the account that logged in", whoami)
	}
	usage, err := account.client.Usage(ctx)
	noError(t, err)
	if usage.ConcurrentSandboxesLimit != 2 || usage.SandboxOpsRateLimit <= 0 {
		t.Fatalf("usage: %+v", usage)
	}

	created, err := anonymous.CreateAPIKey(ctx, login.AccessToken, "to revoke")
	noError(t, err)
	keys, err := anonymous.ListAPIKeys(ctx, login.AccessToken)
	noError(t, err)
	if len(keys) != 2 || keys[0].ID != created.ID || keys[0].RevokedAt != nil {
		t.Fatalf("keys, newest first: %+v", keys)
	}
	noError(t, anonymous.RevokeAPIKey(ctx, login.AccessToken, created.ID))
	_, err = newClient(t, account.baseURL, created.Key).Account(ctx)
	asAPIError(t, err, 401, "invalid_api_key")
}

func TestLiveAllowedCommands(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	rules := []cairn.CommandRule{{Command: "echo"}, {Command: "ls", ArgsAllow: []string{"^-l"}, ArgsDeny: []string{}}}
	stored, err := account.client.SetAllowedCommands(ctx, rules)
	noError(t, err)
	read, err := account.client.GetAllowedCommands(ctx)
	noError(t, err)
	for _, got := range []*cairn.AllowedCommands{stored, read} {
		if len(got.Rules) != 2 || got.Rules[0].Command != "echo" || got.Rules[1].ArgsAllow[0] != "^-l" {
			t.Fatalf("rules: %+v", got.Rules)
		}
	}
	noError(t, account.client.ClearAllowedCommands(ctx))
	cleared, err := account.client.GetAllowedCommands(ctx)
	noError(t, err)
	if len(cleared.Rules) != 0 {
		t.Fatalf("cleared rules: %+v", cleared.Rules)
	}
	_, err = account.client.SetAllowedCommands(ctx, []cairn.CommandRule{{Command: "x", ArgsAllow: []string{"("}}})
	asAPIError(t, err, 400, "invalid_pattern")
}

func TestLiveImagesVolumesSecretsAndConnections(t *testing.T) {
	account := newLiveAccount(t)
	ctx := liveContext(t)
	client := account.client

	image, err := client.CreateImage(ctx, cairn.CreateImageRequest{Label: "go image", Base: "minimal"})
	noError(t, err)
	got, err := client.GetImage(ctx, image.ID)
	noError(t, err)
	images, err := client.ListImages(ctx)
	noError(t, err)
	if got.Base != "minimal" || got.Label == nil || *got.Label != "go image" || len(images) != 1 {
		t.Fatalf("image %+v, list %+v", got, images)
	}
	noError(t, client.DeleteImage(ctx, image.ID))
	_, err = client.CreateImage(ctx, cairn.CreateImageRequest{PythonPackages: []string{"requests"}})
	asAPIError(t, err, 422, "validation_error")

	volume, err := client.CreateVolume(ctx, cairn.CreateVolumeRequest{Label: "go volume", SizeGB: 1})
	noError(t, err)
	gotVolume, err := client.GetVolume(ctx, volume.ID)
	noError(t, err)
	volumes, err := client.ListVolumes(ctx)
	noError(t, err)
	if gotVolume.SizeGB != 1 || len(volumes) != 1 || volume.Status != "queued" {
		t.Fatalf("volume %+v, list %+v", gotVolume, volumes)
	}
	noError(t, client.DeleteVolume(ctx, volume.ID))

	secret, err := client.CreateSecret(ctx, cairn.CreateSecretRequest{Name: "token", Value: "s3cret", AllowedHosts: []string{"api.example.com"}})
	noError(t, err)
	_, err = client.CreateSecret(ctx, cairn.CreateSecretRequest{Name: "token", Value: "again", AllowedHosts: []string{"api.example.com"}})
	asAPIError(t, err, 409, "secret_name_taken")
	secrets, err := client.ListSecrets(ctx)
	noError(t, err)
	if len(secrets) != 1 || secrets[0].Name != "token" || secrets[0].AllowedHosts[0] != "api.example.com" {
		t.Fatalf("secrets: %+v", secrets)
	}
	noError(t, client.DeleteSecret(ctx, secret.ID))

	connection, err := client.CreateMCPConnection(ctx, cairn.CreateMCPConnectionRequest{Label: "code", CatalogID: "github"})
	noError(t, err)
	connections, err := client.ListMCPConnections(ctx)
	noError(t, err)
	if connection.Host != "api.githubcopilot.com" || len(connections) != 1 {
		t.Fatalf("connection %+v, list %+v", connection, connections)
	}
	noError(t, client.DeleteMCPConnection(ctx, connection.ID))
	err = client.DeleteMCPConnection(ctx, connection.ID)
	asAPIError(t, err, 404, "not_found")
}
