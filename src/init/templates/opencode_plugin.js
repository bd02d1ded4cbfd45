// notarai: after each edit, check the project's specs (`notarai hook validate`)
// and put what is wrong into the tool's output, where the model reads it.
// Written by `notarai init --agents opencode`; `notarai init --remove` takes it out.
const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"]);

export const NotaraiPlugin = async ({ $, directory }) => ({
  "tool.execute.after": async (input, output) => {
    if (!EDIT_TOOLS.has(input.tool)) return;
    const event = JSON.stringify({
      hook_event_name: "tool.execute.after",
      tool_name: input.tool,
      tool_input: input.args ?? {},
      cwd: directory,
    });
    const result = await $`notarai hook validate --agent opencode < ${new Response(event)}`
      .cwd(directory)
      .nothrow()
      .quiet();
    if (result.exitCode === 2) {
      const errors = result.stderr.toString().trim();
      output.output = `${output.output ?? ""}\n\nnotarai hook validate:\n${errors}`;
    }
  },
});
