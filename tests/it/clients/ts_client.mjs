// Drive `notarai mcp` with the official TypeScript SDK 2.x client
// (@modelcontextprotocol/client; tests/it/sdk_clients.rs).
// Usage: node ts_client.mjs NOTARAI ROOT MODE SDK_DIR   (MODE: auto | pin | legacy;
// SDK_DIR: the folder whose node_modules holds the SDK)
// Prints one JSON object: the negotiated revision and what every tool,
// resource, prompt and completion answered. Exit 3 when the SDK is absent.
import { createRequire } from 'node:module';
import { join } from 'node:path';
let Client, StdioClientTransport;
try {
  const require = createRequire(join(process.argv[5] ?? '.', 'package.json'));
  ({ Client } = require('@modelcontextprotocol/client'));
  ({ StdioClientTransport } = require('@modelcontextprotocol/client/stdio'));
} catch (e) {
  console.error(`no TypeScript MCP SDK 2.x: ${e.message}`);
  process.exit(3);
}
const [binary, root, mode] = process.argv.slice(2);
const negotiation = mode === 'pin' ? { mode: { pin: '2026-07-28' } } : { mode };
const client = new Client({ name: 'notarai-test', version: '1.0.0' }, { versionNegotiation: negotiation });
await client.connect(new StdioClientTransport({ command: binary, args: ['mcp', '--root', root] }));
const out = { version: client.getNegotiatedProtocolVersion() };
const spec = '.notarai/a.spec.yaml';
const args = {
  get_reconciliation_status: { base_branch: 'main' },
  list_affected_specs: { base_branch: 'main' },
  get_spec_diff: { spec_path: spec, base_branch: 'main' },
  get_changed_artifacts: { spec_path: spec },
  get_governing_specs: { paths: ['src/a.rs'] },
  report_drift: { spec_path: spec, note: 'seen by the test client' },
  mark_reconciled: { files: ['src/a.rs'], spec_path: spec },
};
out.tools = (await client.listTools()).tools.map((t) => t.name);
out.calls = {};
for (const name of out.tools) {
  const result = await client.callTool({ name, arguments: args[name] ?? {} });
  out.calls[name] = { is_error: !!result.isError, structured: result.structuredContent !== undefined };
}
const bad = await client.callTool({ name: 'get_spec_diff', arguments: { spec_path: 'nope' } });
out.bad_argument = { is_error: !!bad.isError, text: bad.content.map((c) => c.text ?? '').join(' ') };
out.resources = (await client.listResources()).resources.map((r) => r.uri);
const read = await client.readResource({ uri: out.resources[0] });
out.read = read.contents[0].text.slice(0, 40);
out.templates = (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate);
out.prompts = (await client.listPrompts()).prompts.map((p) => p.name);
out.prompt_messages = (await client.getPrompt({ name: 'reconcile', arguments: { spec_path: spec } })).messages.length;
const done = await client.complete({ ref: { type: 'ref/prompt', name: 'reconcile' }, argument: { name: 'spec_path', value: '' } });
out.completion = done.completion.values;
console.log(JSON.stringify(out));
await client.close();
