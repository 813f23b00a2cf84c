import { z } from "zod";
import { defineTool, requireAccount } from "../../tool.ts";
import { previewSummaryOut, toPreviewSummary } from "./previews-schemas.ts";
import { requireActiveSession, sessionIdParameter } from "./sessions.ts";

export const listPreviews = defineTool({
  name: "list_previews",
  group: "sandboxes",
  title: "List previews",
  description: "A sandbox's unexpired preview URLs (their ids, not the URLs).",
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  input: z.object({ session_id: sessionIdParameter }),
  output: z.object({ previews: z.array(previewSummaryOut) }),
  auth: "api_key",
  bucket: "sandbox_ops",
  http: { method: "GET", path: "/v1/sandboxes/:session_id/previews", status: 200 },
  uses: ["previews", "storage"],
  async handler(context, input) {
    const session = await requireActiveSession(context, input.session_id);
    return {
      previews: (await context.platform.previews.list(requireAccount(context), session.id)).map(
        toPreviewSummary,
      ),
    };
  },
});
