/** The file browser's data: one session's directory listing and the file being viewed. */
import type { CairnClient } from "cairn-client";
import { useCallback, useState } from "react";
import { describeError } from "./describe-error.ts";

export type FileEntry = Awaited<ReturnType<CairnClient["ls"]>>["entries"][number];

export const workspaceRoot = "/workspace/";

/** The directory above `path` (which ends with "/"), never above the workspace. */
export function parentDirectory(path: string): string {
  if (path === workspaceRoot) return workspaceRoot;
  const trimmed = path.replace(/\/+$/, "");
  const parent = trimmed.slice(0, trimmed.lastIndexOf("/") + 1);
  return parent.length < workspaceRoot.length ? workspaceRoot : parent;
}

export interface ViewedFile {
  path: string;
  content: string;
}

export function useSessionFiles(client: CairnClient) {
  const [directory, setDirectory] = useState(workspaceRoot);
  const [entries, setEntries] = useState<FileEntry[]>([]);
  const [file, setFile] = useState<ViewedFile | null>(null);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);

  const open = useCallback(
    async (sessionId: string, path: string) => {
      setLoading(true);
      try {
        const listed = await client.ls(sessionId, path);
        setDirectory(path);
        setEntries(listed.entries);
        setError(null);
      } catch (caught) {
        setError(describeError(caught));
      } finally {
        setLoading(false);
      }
    },
    [client],
  );

  const view = useCallback(
    async (sessionId: string, path: string) => {
      setLoading(true);
      try {
        const viewed = await client.view(sessionId, path);
        setFile({ path, content: viewed.content });
        setError(null);
      } catch (caught) {
        setError(describeError(caught));
      } finally {
        setLoading(false);
      }
    },
    [client],
  );

  const closeFile = useCallback(() => setFile(null), []);

  return { directory, entries, file, loading, error, open, view, closeFile };
}
