/**
 * The model server's Python checks, run from vitest so the one test command reaches them: ruff
 * (format and lint), pyright (types) and the pytest suite in ./python (device rules with the provider list as
 * input, request validation, batch planning, settings, models served by path).
 */
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { beforeAll, expect, it } from "vitest";
import {
  ensureModelServerEnvironment,
  modelServerFolder,
  repositoryRoot,
  setupTimeout,
  testEnvironment,
  testPython,
} from "./model-server-process.ts";

beforeAll(() => ensureModelServerEnvironment(), setupTimeout);

it("passes its pytest suite (device rules, validation, batch planning, settings, models by path)", () => {
  const run = spawnSync(
    testPython,
    ["-m", "pytest", "-q", "-p", "no:cacheprovider", resolve(import.meta.dirname, "python")],
    { cwd: repositoryRoot, encoding: "utf8" },
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  expect(run.stdout).toMatch(/\d+ passed/);
}, 120_000);

it("is formatted and lint-clean (ruff, configured in plugins/model-server/pyproject.toml)", () => {
  const ruff = resolve(testEnvironment, "bin/ruff");
  const options = ["--config", resolve(modelServerFolder, "pyproject.toml")];
  const paths = [modelServerFolder, resolve(import.meta.dirname, "python")];
  const format = spawnSync(ruff, ["format", "--check", ...options, ...paths], { encoding: "utf8" });
  expect(format.status, format.stdout + format.stderr).toBe(0);
  const lint = spawnSync(ruff, ["check", ...options, ...paths], { encoding: "utf8" });
  expect(lint.status, lint.stdout + lint.stderr).toBe(0);
});

it("type-checks (pyright, configured in plugins/model-server/pyproject.toml)", () => {
  const pyright = resolve(repositoryRoot, "node_modules/.bin/pyright");
  const options = ["-p", resolve(modelServerFolder, "pyproject.toml"), "--pythonpath", testPython];
  const check = spawnSync(pyright, options, { encoding: "utf8" });
  expect(check.status, check.stdout + check.stderr).toBe(0);
  expect(check.stdout).toContain("0 errors");
}, 60_000);
