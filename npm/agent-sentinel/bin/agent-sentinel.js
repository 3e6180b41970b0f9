#!/usr/bin/env node
// agent-sentinel's launcher: runs the sentinel binary of the platform package npm installed
// beside this one (@agent-sentinel/linux-x64 and the like, optional dependencies of which npm
// installs only the one matching this machine), with the same arguments, stdio and exit status.
//
// `install` and `setup` first copy the binary to ~/.local/bin/sentinel (SENTINEL_BIN_DIR to
// change it) and run that copy: the hook they register names the binary's path, and a path
// inside npm's or npx's cache would vanish with the cache, leaving a hook that cannot start.
"use strict";

const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const PACKAGES = {
  "linux x64": "@agent-sentinel/linux-x64",
  "linux arm64": "@agent-sentinel/linux-arm64",
  "darwin x64": "@agent-sentinel/darwin-x64",
  "darwin arm64": "@agent-sentinel/darwin-arm64",
  "win32 x64": "@agent-sentinel/win32-x64",
};

function fail(message) {
  process.stderr.write(`agent-sentinel: ${message}\n`);
  process.exit(1);
}

function platformBinary() {
  const key = `${process.platform} ${process.arch}`;
  const name = PACKAGES[key];
  if (!name) {
    fail(`no sentinel build for ${key}; build it from source: cargo install agent-sentinel`);
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${name}/package.json`));
  } catch {
    fail(`${name} is not installed (npm skipped the optional dependency?): npm install ${name}`);
  }
  return path.join(dir, "bin", process.platform === "win32" ? "sentinel.exe" : "sentinel");
}

// Copies `binary` to the stable place, in one rename, and returns the copy's path.
function stableCopy(binary) {
  const dir = process.env.SENTINEL_BIN_DIR || path.join(os.homedir(), ".local", "bin");
  const target = path.join(dir, path.basename(binary));
  fs.mkdirSync(dir, { recursive: true });
  const partial = path.join(dir, `.sentinel.new.${process.pid}`);
  fs.copyFileSync(binary, partial);
  fs.chmodSync(partial, 0o755);
  fs.renameSync(partial, target);
  process.stderr.write(`agent-sentinel: copied sentinel to ${target} (the hook runs it from there)\n`);
  return target;
}

const args = process.argv.slice(2);
let binary = platformBinary();
if (args[0] === "install" || args[0] === "setup") {
  binary = stableCopy(binary);
}
const result = spawnSync(binary, args, { stdio: "inherit" });
if (result.error) {
  fail(`cannot run ${binary}: ${result.error.message}`);
}
if (result.signal) {
  process.kill(process.pid, result.signal);
}
process.exit(result.status ?? 1);
