/**
 * The system Chromium (the test set-up installs it) under playwright-core, as the browser tests
 * run it: root in a container, where Chromium's own sandbox needs user namespaces it may not get,
 * and a closed network, where its background calls to Google only wait.
 */
import { type Browser, chromium } from "playwright-core";

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update"],
  });
}
