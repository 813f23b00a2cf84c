import { describe, expect, it } from "vitest";
import { loadConfig } from "./config.ts";

describe("configuration", () => {
  it("has the documented defaults", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      SVC_HOST: "127.0.0.1",
      SVC_PORT: 8090,
      SVC_DATA_DIR: "./.cairn",
      SVC_ACCESS_TOKEN_TTL_MINUTES: 30,
      SVC_MAX_CONCURRENT_SANDBOXES: 2,
      SVC_FREE_MONTHLY_SANDBOX_HOURS: 20,
      SVC_SANDBOX_RATE_LIMIT_PER_MINUTE: 120,
      SVC_AUTH_RATE_LIMIT_PER_MINUTE: 10,
      SVC_RATE_LIMIT_STORE: "memory",
      SVC_API_DOCS: true,
      SVC_MEMORY_EMBEDDINGS_ENABLED: false,
      SVC_CORS_ALLOWED_ORIGINS: [],
    });
  });

  it("parses booleans, numbers and lists, and ignores non-SVC variables", () => {
    const config = loadConfig({
      SVC_PORT: "9000",
      SVC_API_DOCS: "false",
      SVC_CORS_ALLOWED_ORIGINS: "https://a.example, https://b.example",
      PATH: "/bin",
    });
    expect(config.SVC_PORT).toBe(9000);
    expect(config.SVC_API_DOCS).toBe(false);
    expect(config.SVC_CORS_ALLOWED_ORIGINS).toEqual(["https://a.example", "https://b.example"]);
  });

  it("names the variable when a value is invalid", () => {
    expect(() => loadConfig({ SVC_PORT: "eighty" })).toThrow(/SVC_PORT/);
    expect(() => loadConfig({ SVC_RATE_LIMIT_STORE: "etcd" })).toThrow(/SVC_RATE_LIMIT_STORE/);
  });

  it("parses the sandbox uid range and refuses one that reaches the host's system accounts or wraps", () => {
    expect(loadConfig({}).SVC_SANDBOX_UID_RANGE).toEqual({ first: 2_000_000, count: 65_536 });
    expect(loadConfig({ SVC_SANDBOX_UID_RANGE: "300000-300009" }).SVC_SANDBOX_UID_RANGE).toEqual({
      first: 300_000,
      count: 10,
    });
    for (const value of ["0-65535", "999-2000", "5000-4000", "5000", "a-b", "1000-4294967295"]) {
      expect(() => loadConfig({ SVC_SANDBOX_UID_RANGE: value }), value).toThrow(/SVC_SANDBOX_UID_RANGE/);
    }
  });

  it("reads the outbound-MCP catalog as id=host entries, with the four defaults when unset", () => {
    expect(loadConfig({}).SVC_MCP_CATALOG).toEqual({
      slack: "mcp.slack.com",
      notion: "mcp.notion.com",
      linear: "mcp.linear.app",
      github: "api.githubcopilot.com",
    });
    expect(
      loadConfig({ SVC_MCP_CATALOG: " Local=127.0.0.1 , docs=mcp.docs.example " }).SVC_MCP_CATALOG,
    ).toEqual({
      local: "127.0.0.1",
      docs: "mcp.docs.example",
    });
    for (const value of [
      "slack",
      "a=b=c",
      "a=https://x.example",
      "a=x.example:443",
      "a=x,a=y",
      "=x.example",
    ]) {
      expect(() => loadConfig({ SVC_MCP_CATALOG: value }), value).toThrow(/SVC_MCP_CATALOG/);
    }
    expect(loadConfig({ SVC_VOLUMES_ENABLED: "false" }).SVC_VOLUMES_ENABLED).toBe(false);
  });

  it("has the image builder's defaults and takes its own registry hosts", () => {
    expect(loadConfig({})).toMatchObject({
      SVC_IMAGE_BUILDER_ENABLED: true,
      SVC_IMAGE_BASES: [],
      SVC_MAX_IMAGES_PER_ACCOUNT: 10,
      SVC_GLOBAL_MAX_IMAGE_BUILDS: 5,
      SVC_IMAGE_BUILD_RATE_LIMIT_PER_MINUTE: 3,
      SVC_IMAGE_BUILD_TIMEOUT_SECONDS: 900,
      SVC_IMAGE_REGISTRY_HOSTS: [
        "registry.npmjs.org",
        "pypi.org",
        "files.pythonhosted.org",
        "deb.debian.org",
      ],
      SVC_KUBE_IMAGE_BUILDER_IMAGE: "gcr.io/kaniko-project/executor:v1.23.2",
    });
    const config = loadConfig({
      SVC_IMAGE_REGISTRY_HOSTS: "Registry.Mirror.Example, pypi.mirror.example",
      SVC_IMAGE_BASES: "minimal",
      SVC_GLOBAL_MAX_IMAGE_BUILDS: "2",
    });
    expect(config.SVC_IMAGE_REGISTRY_HOSTS).toEqual(["registry.mirror.example", "pypi.mirror.example"]);
    expect(config.SVC_IMAGE_BASES).toEqual(["minimal"]);
    expect(config.SVC_GLOBAL_MAX_IMAGE_BUILDS).toBe(2);
    expect(() => loadConfig({ SVC_GLOBAL_MAX_IMAGE_BUILDS: "0" })).toThrow(/SVC_GLOBAL_MAX_IMAGE_BUILDS/);
  });
});

describe("an unusable setting", () => {
  // Every SVC_ setting that holds a number, a boolean, a choice or a URL, given a word.
  const settings = Object.keys(loadConfig({})).filter((name) => name.startsWith("SVC_"));
  const refused = settings.filter((name) => {
    try {
      loadConfig({ [name]: "not-a-value" });
      return false;
    } catch {
      return true;
    }
  });

  it("is refused for every typed setting, not taken as text", () => {
    // The settings that are free text (paths, names, secrets, lists) take any word.
    const freeText = settings.filter((name) => !refused.includes(name));
    expect(freeText.sort()).toEqual(
      [
        "SVC_BUBBLEWRAP_PATH",
        "SVC_CORS_ALLOWED_ORIGINS",
        "SVC_DATA_DIR",
        "SVC_HOST",
        "SVC_IMAGE_BASES",
        "SVC_IMAGE_REGISTRY_HOSTS",
        "SVC_JWT_SECRET",
        "SVC_KUBE_IMAGE_BUILDER_IMAGE",
        "SVC_KUBE_IMAGE_REPOSITORY",
        "SVC_KUBE_NAMESPACE",
        "SVC_KUBE_SANDBOX_IMAGE",
        "SVC_MEMORY_EMBEDDING_MODEL",
        "SVC_PLUGINS",
        "SVC_REDIS_URL",
        "SVC_SECRETS_KEY",
      ].filter((name) => settings.includes(name)),
    );
  });

  it.each(refused)("%s is one line naming it, with what it takes", (name) => {
    let message = "";
    try {
      loadConfig({ [name]: "not-a-value" });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(new RegExp(`^Invalid configuration: ${name}: (expected|must) `));
    expect(message).not.toContain("\n");
    expect(message).not.toMatch(/Invalid (input|option)|NaN/);
  });
});
