/**
 * `evaluation …` commands of the operator CLI: the evaluation use cases with the operator as
 * principal, through the same tools' adapters and input schemas as MCP.
 */
import { type CommandSpec, cursorFlag, flag, limitFlag, workspaceFlag } from "./command-spec";

const datasetFlag = flag("dataset", "string", "The dataset's id (admin evaluation dataset list)", { key: "datasetId", placeholder: "ID", required: true });
const runFlag = flag("run", "string", "The run's id (admin evaluation run list)", { key: "runId", placeholder: "ID", required: true });
const RUN_COLUMNS = ["id", "status", "datasetId", "target", "caseCount", "aggregates.passRate", "createdAt"] as const;

export const EVALUATION_COMMANDS: CommandSpec[] = [
	{
		path: "evaluation dataset list",
		summary: "A workspace's evaluation datasets with their case counts, newest first",
		tool: "list_evaluation_datasets",
		flags: [workspaceFlag, limitFlag("20"), cursorFlag],
		table: { list: "data", columns: ["id", "name", "caseCount", "description", "createdAt"], empty: "No datasets." },
	},
	{
		path: "evaluation dataset get",
		summary: "A dataset with every live case",
		tool: "get_evaluation_dataset",
		flags: [workspaceFlag, datasetFlag],
	},
	{
		path: "evaluation dataset create",
		summary: "An empty dataset; then add cases and run it",
		tool: "create_evaluation_dataset",
		flags: [workspaceFlag, flag("name", "string", "Dataset name", { placeholder: "NAME", required: true }), flag("description", "string", "What the dataset checks")],
	},
	{
		path: "evaluation dataset delete",
		summary: "Remove a dataset from lists and new runs (past runs stay readable)",
		tool: "delete_evaluation_dataset",
		flags: [workspaceFlag, datasetFlag],
	},
	{
		path: "evaluation case add",
		summary: "Add a case: an input (or messages), scorers, and optionally an expected output",
		details:
			'Scorers: exact_match, contains, regex, json, numeric, rubric, tool_called, e.g. --scorers \'[{"type":"contains"}]\'. Cases never change: to edit one, add its replacement with --replaces. JSON flags also take @file.',
		tool: "add_evaluation_case",
		flags: [
			workspaceFlag,
			datasetFlag,
			flag("input", "string", "The runtime input, as a deployed assistant receives it"),
			flag("messages", "json", 'A conversation: [{"role":"user","content":"…"}]'),
			flag("scorers", "json", "One or more scorers", { required: true }),
			flag("expected", "string", "A reference answer for the scorers that compare against one", { key: "expectedOutput" }),
			flag("variables", "json", "Values for the assistant's prompt variables"),
			flag("replaces", "string", "The case this one replaces", { key: "replacesCaseId", placeholder: "CASE_ID" }),
		],
		oneOf: [["input", "messages"]],
	},
	{
		path: "evaluation case delete",
		summary: "Remove a case from its dataset (runs that scored it keep it)",
		tool: "delete_evaluation_case",
		flags: [workspaceFlag, flag("case", "string", "The case's id (admin evaluation dataset get)", { key: "caseId", placeholder: "ID", required: true })],
	},
	{
		path: "evaluation run start",
		summary: "Run every case against a version, the draft, or what an environment serves",
		details: "Runs in the background and costs money (generations and model-graded scoring): poll evaluation run get until the status is completed.",
		tool: "run_evaluation",
		flags: [
			workspaceFlag,
			datasetFlag,
			flag("slug", "string", "The assistant's slug", { key: "target.assistantSlug", placeholder: "SLUG", required: true }),
			flag("version", "integer", "Evaluate this version", { key: "target.version" }),
			flag("environment", "string", "Evaluate what this environment serves (frozen at start)", { key: "target.environment", placeholder: "SLUG" }),
			flag("draft", "boolean", "Evaluate the current draft", { key: null }),
			flag("concurrency", "integer", "Cases generated at once, 1 to 16", { default: "4" }),
		],
		oneOf: [["version", "environment", "draft"]],
		assemble: (input, given) => {
			const target = input.target as Record<string, unknown>;
			const kind = given.has("version") ? "version" : given.has("environment") ? "environment" : "draft";
			return { ...input, target: { kind, ...target } };
		},
	},
	{
		path: "evaluation run get",
		summary: "A run's status, aggregates and per-case results; --compare sets it beside a baseline run",
		tool: "get_evaluation_run",
		flags: [workspaceFlag, runFlag, flag("compare", "string", "A baseline run of the same dataset", { key: "compareToRunId", placeholder: "BASELINE_RUN_ID" })],
	},
	{
		path: "evaluation run list",
		summary: "A workspace's runs (of one dataset), newest first",
		tool: "list_evaluation_runs",
		flags: [workspaceFlag, flag("dataset", "string", "Only runs of this dataset", { key: "datasetId", placeholder: "ID" }), limitFlag("20"), cursorFlag],
		table: { list: "data", columns: RUN_COLUMNS, empty: "No runs." },
	},
	{
		path: "evaluation run cancel",
		summary: "Stop a queued or running run (cases already scored stay)",
		tool: "cancel_evaluation_run",
		flags: [workspaceFlag, runFlag],
	},
];
