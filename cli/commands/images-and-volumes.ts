/** `cairn images build|get|ls|rm` and `cairn volumes create|get|ls|rm`. */
import type { Command } from "commander";
import { group, leaf } from "../command-kit.ts";
import { authenticatedClient, type JsonOption } from "../context.ts";
import { CliError, exitCodes } from "../errors.ts";
import {
  colour,
  printFields,
  printJson,
  printTable,
  relativeTime,
  startSpinner,
  statusText,
  success,
} from "../output.ts";
import { collect, schemaOption, toNumber, validateInput } from "../schemas.ts";

interface BuildOptions extends JsonOption {
  base?: string;
  label?: string;
  pythonPackage?: string[];
  aptPackage?: string[];
  npmPackage?: string[];
  wait?: boolean;
}

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export function addImageAndVolumeCommands(program: Command): void {
  const images = group(program, "images", "Build custom sandbox images from a base and pinned packages", [
    "cairn images build --python-package requests==2.32.3 --wait",
    "cairn images ls",
  ]);

  leaf(images, "build", "Build an image; with --wait, show a spinner until it completes or fails", [
    "cairn images build --label data --python-package pandas==2.2.3 --wait",
    "cairn images build --base minimal --apt-package jq==1.6-2.1",
  ])
    .addOption(schemaOption("--base <base>", "create_sandbox_image", "base"))
    .addOption(schemaOption("--label <label>", "create_sandbox_image", "label"))
    .addOption(
      schemaOption(
        "--python-package <name==version>",
        "create_sandbox_image",
        "python_packages",
        "repeatable",
      ).argParser(collect),
    )
    .addOption(
      schemaOption(
        "--apt-package <name==version>",
        "create_sandbox_image",
        "apt_packages",
        "repeatable",
      ).argParser(collect),
    )
    .addOption(
      schemaOption(
        "--npm-package <name==version>",
        "create_sandbox_image",
        "npm_packages",
        "repeatable",
      ).argParser(collect),
    )
    .option("--wait", "wait until the build completes or fails")
    .action(async (options: BuildOptions) => {
      validateInput(
        "create_sandbox_image",
        {
          base: options.base,
          label: options.label,
          python_packages: options.pythonPackage,
          apt_packages: options.aptPackage,
          npm_packages: options.npmPackage,
        },
        { python_packages: "--python-package", apt_packages: "--apt-package", npm_packages: "--npm-package" },
      );
      const { client } = await authenticatedClient();
      const created = await client.createImage({
        base: options.base,
        label: options.label,
        pythonPackages: options.pythonPackage,
        aptPackages: options.aptPackage,
        npmPackages: options.npmPackage,
      });
      if (!options.wait) {
        if (options.json) return printJson(created);
        return success(
          `Image ${colour.bold(created.id)} is ${created.status}; follow it with \`cairn images get ${created.id}\``,
        );
      }
      const spinner = options.json ? null : startSpinner(`Building image ${created.id} (${created.status})`);
      let image = await client.getImage(created.id);
      while (image.status === "queued" || image.status === "building") {
        spinner?.update(`Building image ${created.id} (${image.status})`);
        await sleep(1000);
        image = await client.getImage(created.id);
      }
      spinner?.stop();
      if (options.json) printJson(image);
      if (image.status === "failed") {
        if (!options.json && image.build_log_tail)
          process.stderr.write(`${image.build_log_tail.trimEnd()}\n`);
        throw new CliError(
          `image ${image.id} failed to build: ${image.failure_reason ?? "no reason given"}`,
          "image_build_failed",
          exitCodes.unexpected,
        );
      }
      if (!options.json)
        success(`Image ${colour.bold(image.id)} is ready: cairn session create --image-id ${image.id}`);
    });

  leaf(images, "get <id>", "Show an image, its status and the end of its build log", [
    "cairn images get 5b1d…",
  ]).action(async (id: string, options: JsonOption) => {
    const { client } = await authenticatedClient();
    const image = await client.getImage(id);
    if (options.json) return printJson(image);
    printFields([
      ["ID", image.id],
      ["Label", image.label],
      ["Status", statusText(image.status)],
      ["Base", image.base],
      ["Python", image.python_packages.join(" ")],
      ["Apt", image.apt_packages.join(" ")],
      ["npm", image.npm_packages.join(" ")],
      ["Digest", image.digest],
      ["Failure", image.failure_reason],
      ["Created", relativeTime(image.created_at)],
      ["Completed", relativeTime(image.completed_at)],
    ]);
    if (image.build_log_tail)
      process.stdout.write(`\n${colour.dim("Build log (end):")}\n${image.build_log_tail.trimEnd()}\n`);
  });

  leaf(images, "ls", "List images", ["cairn images ls"]).action(async (options: JsonOption) => {
    const { client } = await authenticatedClient();
    const list = await client.listImages();
    if (options.json) return printJson(list);
    printTable(
      ["ID", "LABEL", "BASE", "STATUS", "CREATED"],
      list.map((image) => [
        image.id,
        image.label ?? "-",
        image.base,
        statusText(image.status),
        relativeTime(image.created_at),
      ]),
      "No images.",
    );
  });

  leaf(images, "rm <id>", "Delete an image", ["cairn images rm 5b1d…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      await client.deleteImage(id);
      if (options.json) return printJson({ status: "deleted", id });
      success(`Deleted image ${id}`);
    },
  );

  const volumes = group(program, "volumes", "Persistent volumes to mount into sandboxes", [
    "cairn volumes create --size-gb 1 --label data",
    "cairn session create --volume-mounts <volume-id>=/data",
  ]);

  leaf(volumes, "create", "Create a volume", ["cairn volumes create --size-gb 2 --label datasets"])
    .addOption(
      schemaOption("--size-gb <gb>", "create_sandbox_volume", "size_gb")
        .argParser(toNumber)
        .makeOptionMandatory(),
    )
    .addOption(schemaOption("--label <label>", "create_sandbox_volume", "label"))
    .action(async (options: JsonOption & { sizeGb: number; label?: string }) => {
      validateInput("create_sandbox_volume", { size_gb: options.sizeGb, label: options.label });
      const { client } = await authenticatedClient();
      const created = await client.createVolume({ sizeGb: options.sizeGb, label: options.label });
      if (options.json) return printJson(created);
      success(
        `Volume ${colour.bold(created.id)} is ${created.status}; mount it with --volume-mounts ${created.id}=/data`,
      );
    });

  leaf(volumes, "get <id>", "Show a volume", ["cairn volumes get 9a3e…"]).action(
    async (id: string, options: JsonOption) => {
      const { client } = await authenticatedClient();
      const volume = await client.getVolume(id);
      if (options.json) return printJson(volume);
      printFields([
        ["ID", volume.id],
        ["Label", volume.label],
        ["Status", statusText(volume.status)],
        ["Size", `${volume.size_gb} GB`],
        ["Used", volume.used_bytes === null ? null : `${volume.used_bytes} bytes`],
        ["Failure", volume.failure_reason],
        ["Created", relativeTime(volume.created_at)],
      ]);
    },
  );

  leaf(volumes, "ls", "List volumes", ["cairn volumes ls"]).action(async (options: JsonOption) => {
    const { client } = await authenticatedClient();
    const list = await client.listVolumes();
    if (options.json) return printJson(list);
    printTable(
      ["ID", "LABEL", "SIZE", "STATUS", "CREATED"],
      list.map((volume) => [
        volume.id,
        volume.label ?? "-",
        `${volume.size_gb} GB`,
        statusText(volume.status),
        relativeTime(volume.created_at),
      ]),
      "No volumes.",
    );
  });

  leaf(volumes, "rm <id>", "Delete a volume (not while a session mounts it)", [
    "cairn volumes rm 9a3e…",
  ]).action(async (id: string, options: JsonOption) => {
    const { client } = await authenticatedClient();
    await client.deleteVolume(id);
    if (options.json) return printJson({ status: "deleted", id });
    success(`Deleted volume ${id}`);
  });
}
