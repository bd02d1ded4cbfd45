"""Drive `notarai mcp` with the official Python SDK 2.x client (tests/it/sdk_clients.rs).

Usage: python_client.py NOTARAI ROOT MODE   (MODE: auto | legacy)
Prints one JSON object: the negotiated revision and what every tool,
resource, prompt and completion answered. Exit 3 when the SDK is absent.
"""

import asyncio
import json
import sys

try:
    from mcp.client.client import Client
    from mcp.client.stdio import StdioServerParameters
    from mcp_types import PromptReference
except ImportError as e:  # the test prints `skipped: ...`
    print(f"no Python MCP SDK 2.x: {e}", file=sys.stderr)
    sys.exit(3)


def text_of(result):
    return " ".join(getattr(c, "text", "") for c in result.content)


async def main(binary, root, mode):
    params = StdioServerParameters(command=binary, args=["mcp", "--root", root])
    out = {}
    async with Client(params, mode=mode) as client:
        out["version"] = client.protocol_version
        tools = await client.list_tools()
        out["tools"] = [t.name for t in tools.tools]
        spec = ".notarai/a.spec.yaml"
        args = {
            "get_reconciliation_status": {"base_branch": "main"},
            "list_affected_specs": {"base_branch": "main"},
            "get_spec_diff": {"spec_path": spec, "base_branch": "main"},
            "get_changed_artifacts": {"spec_path": spec},
            "get_governing_specs": {"paths": ["src/a.rs"]},
            "report_drift": {"spec_path": spec, "note": "seen by the test client"},
            "mark_reconciled": {"files": ["src/a.rs"], "spec_path": spec},
            "snapshot_state": {},
            "clear_cache": {},
        }
        calls = {}
        for name in out["tools"]:
            result = await client.call_tool(name, args.get(name, {}))
            calls[name] = {"is_error": bool(result.is_error), "structured": result.structured_content is not None}
        out["calls"] = calls
        bad = await client.call_tool("get_spec_diff", {"spec_path": "nope"})
        out["bad_argument"] = {"is_error": bool(bad.is_error), "text": text_of(bad)}
        resources = await client.list_resources()
        out["resources"] = [str(r.uri) for r in resources.resources]
        read = await client.read_resource(out["resources"][0])
        out["read"] = getattr(read.contents[0], "text", "")[:40]
        templates = await client.list_resource_templates()
        out["templates"] = [t.uri_template for t in templates.resource_templates]
        prompts = await client.list_prompts()
        out["prompts"] = [p.name for p in prompts.prompts]
        got = await client.get_prompt("reconcile", {"spec_path": spec})
        out["prompt_messages"] = len(got.messages)
        done = await client.complete(PromptReference(type="ref/prompt", name="reconcile"), {"name": "spec_path", "value": ""})
        out["completion"] = done.completion.values
    print(json.dumps(out))


asyncio.run(main(*sys.argv[1:4]))
