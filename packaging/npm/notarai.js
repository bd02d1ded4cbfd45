#!/usr/bin/env node
// The `notarai` command of the npm package notarai-rs: runs the prebuilt
// binary of this platform's package (notarai-rs-<platform>-<arch>, an optional
// dependency npm installs only where its os/cpu match). No install script:
// the binary arrives as a file of that package. NOTARAI_BINARY runs another
// binary instead (a platform with no package, or a build of your own).
"use strict";

const { spawn } = require("node:child_process");
const path = require("node:path");

function binary() {
  if (process.env.NOTARAI_BINARY) return process.env.NOTARAI_BINARY;
  const pkg = `notarai-rs-${process.platform}-${process.arch}`;
  const exe = process.platform === "win32" ? "notarai.exe" : "notarai";
  let manifest;
  try {
    manifest = require.resolve(`${pkg}/package.json`);
  } catch {
    const supported = ["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64"];
    const why = supported.includes(`${process.platform}-${process.arch}`)
      ? `its package ${pkg} is not installed: npm leaves optional dependencies out ` +
        "with --omit=optional (or --no-optional); install again without it"
      : `no prebuilt binary for ${process.platform}-${process.arch} ` +
        `(prebuilt: ${supported.join(", ")}); build it with ` +
        "`cargo install --locked notarai-rs` and set NOTARAI_BINARY to its path";
    process.stderr.write(`notarai: ${why}\n`);
    process.exit(1);
  }
  return path.join(path.dirname(manifest), "bin", exe);
}

const child = spawn(binary(), process.argv.slice(2), { stdio: "inherit" });
// A client that stops the server signals this process: pass it on.
const signals = ["SIGINT", "SIGTERM", "SIGHUP"];
for (const signal of signals) {
  try {
    process.on(signal, () => child.kill(signal));
  } catch {
    // a signal this platform cannot listen for
  }
}
child.on("error", (error) => {
  process.stderr.write(`notarai: cannot run ${child.spawnfile}: ${error.message}\n`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    for (const name of signals) process.removeAllListeners(name);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
