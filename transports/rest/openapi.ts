/**
 * The OpenAPI 3.1 document of every /v1 route: each operation's from the registry's zod schemas,
 * and the two routes that serve any tool by name.
 */
import { z } from "zod";
import { type AnyTool, errorCodes } from "../../core/index.ts";
import { type HttpOperation, httpOperations, pathParameters } from "./operation-routes.ts";

const errorEnvelope = {
  type: "object",
  required: ["error"],
  properties: {
    error: {
      type: "object",
      required: ["code", "message", "retryable", "remediation"],
      properties: {
        code: { type: "string", enum: Object.keys(errorCodes) },
        message: { type: "string" },
        retryable: { type: "boolean" },
        remediation: { type: ["string", "null"] },
        details: {},
      },
    },
  },
};

/** A zod schema as JSON Schema (without the dialect), as the document and GET /v1/tools show it. */
export function jsonSchema(schema: z.ZodType, io: "input" | "output") {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  return rest;
}

function operation(tool: HttpOperation) {
  const input = jsonSchema(tool.input, "input") as {
    properties?: Record<string, unknown>;
    required?: string[];
  };
  const pathNames = pathParameters(tool.http.path);
  const parameters = pathNames.map((name) => {
    const { description, ...schema } = (input.properties?.[name] ?? { type: "string" }) as {
      description?: string;
    };
    return { name, in: "path", required: true, ...(description ? { description } : {}), schema };
  });
  const properties = Object.fromEntries(
    Object.entries(input.properties ?? {}).filter(([name]) => !pathNames.includes(name)),
  );
  const required = (input.required ?? []).filter((name) => !pathNames.includes(name));
  const usesQuery = tool.http.method === "GET" || tool.http.method === "DELETE";
  if (usesQuery) {
    for (const [name, schema] of Object.entries(properties)) {
      parameters.push({
        name,
        in: "query",
        required: required.includes(name),
        schema: schema as { type: string },
      });
    }
  }
  const security =
    tool.auth === "none" ? [] : tool.auth === "dashboard" ? [{ dashboardToken: [] }] : [{ apiKey: [] }];
  const success =
    tool.http.status === 204
      ? { description: "No content" }
      : {
          description: "Success",
          content: { "application/json": { schema: jsonSchema(tool.output, "output") } },
        };
  return {
    operationId: tool.name,
    summary: tool.title,
    description: tool.description,
    tags: [tool.group],
    security,
    parameters,
    ...(!usesQuery && {
      requestBody: {
        required: required.length > 0,
        content: { "application/json": { schema: { type: "object", properties, required } } },
      },
    }),
    responses: { [tool.http.status]: success, ...errorResponses },
    "x-rate-limit-bucket":
      typeof tool.bucket === "object" && tool.bucket !== null ? tool.bucket.name : tool.bucket,
    "x-mcp-tool": tool.mcp ? (tool.mcp.name ?? tool.name) : null,
  };
}

const errorResponses = {
  default: { description: "Error", content: { "application/json": { schema: errorEnvelope } } },
};

/** The two routes that serve every tool by name (transports/rest/tool-routes.ts). */
const toolPaths = {
  "/v1/tools": {
    get: {
      operationId: "list_tools",
      summary: "List tools",
      description:
        "Every tool this server offers, built-in and from its plugins, with each one's input and output JSON Schemas.",
      tags: ["tools"],
      security: [{ apiKey: [] }],
      parameters: [],
      responses: {
        200: {
          description: "Success",
          content: {
            "application/json": {
              schema: {
                type: "object",
                required: ["tools"],
                properties: {
                  tools: {
                    type: "array",
                    items: {
                      type: "object",
                      required: [
                        "name",
                        "plugin",
                        "group",
                        "title",
                        "description",
                        "input_schema",
                        "output_schema",
                      ],
                      properties: {
                        name: { type: "string" },
                        plugin: { type: ["string", "null"] },
                        group: { type: "string" },
                        title: { type: "string" },
                        description: { type: "string" },
                        annotations: {
                          type: "object",
                          required: ["read_only", "destructive", "idempotent", "open_world"],
                          properties: {
                            read_only: { type: "boolean" },
                            destructive: { type: "boolean" },
                            idempotent: { type: "boolean" },
                            open_world: { type: "boolean" },
                          },
                        },
                        input_schema: { type: "object", description: "JSON Schema of the tool's input" },
                        output_schema: { type: "object", description: "JSON Schema of the tool's output" },
                        mcp_name: { type: ["string", "null"] },
                        http: {
                          anyOf: [
                            {
                              type: "object",
                              required: ["method", "path"],
                              properties: { method: { type: "string" }, path: { type: "string" } },
                            },
                            { type: "null" },
                          ],
                        },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        ...errorResponses,
      },
    },
  },
  "/v1/tools/{name}": {
    post: {
      operationId: "call_tool",
      summary: "Call a tool by name",
      description:
        "Calls a tool (`recall`, or `<plugin>.<tool>` for a plugin's) with its input as the JSON body, through the same checks, credential and rate limit as its own route. Answers 200 with its output, `{}` where the route itself answers 204.",
      tags: ["tools"],
      security: [{ apiKey: [] }, { dashboardToken: [] }, {}],
      parameters: [
        {
          name: "name",
          in: "path",
          required: true,
          description: "The tool's name",
          schema: { type: "string" },
        },
      ],
      requestBody: {
        required: false,
        content: {
          "application/json": {
            schema: {
              type: "object",
              description: "The tool's input (its input_schema in GET /v1/tools)",
              properties: {},
              additionalProperties: true,
            },
          },
        },
      },
      responses: {
        200: { description: "The tool's output", content: { "application/json": { schema: {} } } },
        ...errorResponses,
      },
    },
  },
};

const rawFileParameters = [
  {
    name: "session_id",
    in: "path",
    required: true,
    description: "Sandbox id, from create_sandbox",
    schema: { type: "string", minLength: 1, maxLength: 64 },
  },
  {
    name: "path",
    in: "query",
    required: true,
    description: "File path; relative paths resolve under /workspace",
    schema: { type: "string", minLength: 1, maxLength: 4096 },
  },
];

/** The raw byte routes of a sandbox's files (transports/rest/raw-file-routes.ts): REST only. */
const rawFilePaths = {
  "/v1/sandboxes/{session_id}/files/raw": {
    get: {
      operationId: "download_file",
      summary: "Download a file's bytes",
      description:
        "Streams the file's exact bytes as application/octet-stream with its Content-Length; no size limit of its own. Same credential, rate-limit bucket (sandbox_ops) and path rules as the other file routes.",
      tags: ["files"],
      security: [{ apiKey: [] }],
      parameters: rawFileParameters,
      responses: {
        200: {
          description: "The file's bytes",
          content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
        },
        ...errorResponses,
      },
      "x-rate-limit-bucket": "sandbox_ops",
      "x-mcp-tool": null,
    },
    put: {
      operationId: "upload_file",
      summary: "Upload a file's bytes",
      description:
        "Writes the request body's exact bytes to the file, creating parent directories; the file is replaced only once every byte has arrived. At most 100 MiB (413 payload_too_large, counted while streaming; nothing is left behind); the server's JSON body limit does not apply.",
      tags: ["files"],
      security: [{ apiKey: [] }],
      parameters: rawFileParameters,
      requestBody: {
        required: true,
        content: { "application/octet-stream": { schema: { type: "string", format: "binary" } } },
      },
      responses: {
        200: {
          description: "Success",
          content: {
            "application/json": {
              schema: {
                type: "object",
                properties: {
                  path: { type: "string" },
                  size: { type: "integer" },
                  created: { type: "boolean" },
                },
                required: ["path", "size", "created"],
                additionalProperties: false,
              },
            },
          },
        },
        ...errorResponses,
      },
      "x-rate-limit-bucket": "sandbox_ops",
      "x-mcp-tool": null,
    },
  },
};

/** A route's path as OpenAPI writes it: `/v1/memory/{memory_id}`. */
export const openApiPath = (path: string) => path.replace(/:([a-z_]+)/g, "{$1}");

/**
 * The document of every route, or of those `include` keeps (a server leaves out switched-off
 * ones), of the built-in operations or of the given ones (a server's, with its plugins' tools).
 */
export function createOpenApiDocument(
  version: string,
  include: (tool: HttpOperation) => boolean = () => true,
  operations?: readonly AnyTool[],
) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const tool of httpOperations(operations).filter(include)) {
    const path = openApiPath(tool.http.path);
    paths[path] ??= {};
    paths[path][tool.http.method.toLowerCase()] = operation(tool);
  }
  Object.assign(paths, rawFilePaths, toolPaths);
  return {
    openapi: "3.1.0",
    info: { title: "Cairn API", version, description: "Persistent agent memory and isolated sandboxes." },
    servers: [{ url: "http://127.0.0.1:8090" }],
    components: {
      securitySchemes: {
        apiKey: { type: "http", scheme: "bearer", description: "An API key: cairn_…" },
        dashboardToken: { type: "http", scheme: "bearer", bearerFormat: "JWT" },
      },
    },
    paths,
  };
}
