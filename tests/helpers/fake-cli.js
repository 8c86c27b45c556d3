#!/usr/bin/env node
// A stand-in for a CLI model provider (`claude`, `codex`, ...) for
// tests/integration/provider.sh: it does what such a CLI does with its
// environment and its files, without the network.
//
//   fake-cli [--peek PATH]...
//
// - reads the API keys a provider CLI reads from its environment;
// - keeps its settings in $XDG_CONFIG_HOME/fake-cli/config.json (default
//   ~/.config) and a history in ~/.fake-cli/history, as CLIs do: each run
//   reads them, counts itself, and writes them back;
// - --peek PATH: tries to read PATH (e.g. the user's real config).
//
// Prints one JSON object: what it saw and where it wrote.
const fs = require("fs");
const os = require("os");
const path = require("path");

const env = (name) => (name in process.env ? process.env[name] : null);
const home = os.homedir();
const configDir = path.join(env("XDG_CONFIG_HOME") || path.join(home, ".config"), "fake-cli");
const configFile = path.join(configDir, "config.json");
const historyFile = path.join(home, ".fake-cli", "history");

let config = { runs: 0 };
try {
  config = JSON.parse(fs.readFileSync(configFile, "utf8"));
} catch (e) {
  if (e.code !== "ENOENT") throw e;
}
config.runs += 1;
fs.mkdirSync(configDir, { recursive: true });
fs.writeFileSync(configFile, JSON.stringify(config) + "\n");
fs.mkdirSync(path.dirname(historyFile), { recursive: true });
fs.appendFileSync(historyFile, `run ${config.runs}\n`);

const peeks = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] !== "--peek") continue;
  const p = argv[++i];
  try {
    peeks.push({ path: p, result: fs.readFileSync(p, "utf8") });
  } catch (e) {
    peeks.push({ path: p, result: e.code });
  }
}

console.log(
  JSON.stringify({
    runs: config.runs,
    config_file: configFile,
    history_file: historyFile,
    home,
    env: {
      HOME: env("HOME"),
      TMPDIR: env("TMPDIR"),
      XDG_CONFIG_HOME: env("XDG_CONFIG_HOME"),
      XDG_CACHE_HOME: env("XDG_CACHE_HOME"),
      XDG_STATE_HOME: env("XDG_STATE_HOME"),
      OPENAI_API_KEY: env("OPENAI_API_KEY"),
      ANTHROPIC_API_KEY: env("ANTHROPIC_API_KEY"),
      CORDON_SANDBOX: env("CORDON_SANDBOX"),
      CORDON_SANDBOX_NETWORK_DISABLED: env("CORDON_SANDBOX_NETWORK_DISABLED"),
    },
    peeks,
  }),
);
