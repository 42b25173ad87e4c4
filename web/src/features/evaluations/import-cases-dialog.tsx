import { useQueryClient } from "@tanstack/react-query";
import { type ChangeEvent, useId, useState } from "react";
import { ApiError, managementApi, unwrap } from "../../api/management-client";
import { Alert } from "../../ui/alert";
import { Button } from "../../ui/button";
import { Dialog } from "../../ui/dialog";
import { evaluationsKey } from "./evaluation-queries";
import { IMPORT_LIMITS, type LineIssue, type ParsedFile, parseCasesFile } from "./import-cases";

/** Server refusals in words: the envelope's message and each field's issue. */
function refusal(error: unknown): string {
	if (error instanceof ApiError) return error.fields.length > 0 ? error.fields.map((entry) => `${entry.field}: ${entry.issue}`).join("; ") : error.message;
	return error instanceof Error ? error.message : String(error);
}

/**
 * Cases from a CSV or JSON Lines file, read here before anything is sent: lines that cannot be
 * cases are named with their reason, the others are added one by one through the add-case route,
 * and the lines the server refuses are named too.
 */
export function ImportCasesDialog({ workspaceId, datasetId }: { workspaceId: string; datasetId: string }) {
	const queryClient = useQueryClient();
	const inputId = useId();
	const [open, setOpen] = useState(false);
	const [parsed, setParsed] = useState<(ParsedFile & { name: string }) | null>(null);
	const [progress, setProgress] = useState<{ done: number; added: number; refused: LineIssue[] } | null>(null);
	const [running, setRunning] = useState(false);
	const choose = async (event: ChangeEvent<HTMLInputElement>) => {
		setProgress(null);
		const file = event.target.files?.[0];
		if (!file) return setParsed(null);
		if (file.size > IMPORT_LIMITS.bytes) return setParsed({ name: file.name, cases: [], issues: [{ line: 0, message: `The file is ${file.size} bytes; at most ${IMPORT_LIMITS.bytes}` }] });
		setParsed({ name: file.name, ...parseCasesFile(file.name, await file.text()) });
	};
	const importCases = async () => {
		if (!parsed) return;
		setRunning(true);
		const refused: LineIssue[] = [];
		let added = 0;
		for (const [index, entry] of parsed.cases.entries()) {
			try {
				unwrap(await managementApi.evaluations.addEvaluationCase({ params: { workspaceId, datasetId }, body: entry.body as never }));
				added++;
			} catch (error) {
				refused.push({ line: entry.line, message: refusal(error) });
			}
			setProgress({ done: index + 1, added, refused: [...refused] });
		}
		setRunning(false);
		await queryClient.invalidateQueries({ queryKey: evaluationsKey(workspaceId) });
	};
	return (
		<Dialog
			open={open}
			onOpenChange={(next) => {
				setOpen(next);
				if (!next) {
					setParsed(null);
					setProgress(null);
				}
			}}
			title="Import cases"
			description="A JSON Lines file (one case per line, as the add-case form's fields: input, expectedOutput, variables, scorers) or a CSV file with a header row: input, and expectedOutput, scorer or scorers (JSON)."
			trigger={<Button variant="secondary">Import cases</Button>}
		>
			<div className="field">
				<label htmlFor={inputId} className="field-label">
					Cases file
				</label>
				<input id={inputId} type="file" accept=".csv,.jsonl,.ndjson,.json,text/csv,application/x-ndjson" onChange={choose} disabled={running} />
			</div>
			{parsed ? (
				<Alert tone={parsed.issues.length > 0 ? "warning" : "info"} title={`${parsed.name}: ${parsed.cases.length} ${parsed.cases.length === 1 ? "case" : "cases"} ready, ${parsed.issues.length} ${parsed.issues.length === 1 ? "line" : "lines"} refused`}>
					<LineIssues issues={parsed.issues} label="Lines that cannot be cases" />
				</Alert>
			) : null}
			{progress ? (
				<Alert tone={progress.refused.length > 0 ? "warning" : "success"} title={`${progress.added} of ${parsed?.cases.length ?? 0} cases added${progress.refused.length > 0 ? `, ${progress.refused.length} refused by the server` : ""}`}>
					<progress max={parsed?.cases.length ?? 0} value={progress.done} aria-label="Cases sent" />
					<LineIssues issues={progress.refused} label="Lines the server refused" />
				</Alert>
			) : null}
			<div className="dialog-actions">
				<Button variant="secondary" onClick={() => setOpen(false)}>
					Close
				</Button>
				<Button onClick={importCases} pending={running} disabled={!parsed || parsed.cases.length === 0 || progress !== null}>
					Import {parsed?.cases.length ?? 0} {parsed?.cases.length === 1 ? "case" : "cases"}
				</Button>
			</div>
		</Dialog>
	);
}

function LineIssues({ issues, label }: { issues: LineIssue[]; label: string }) {
	if (issues.length === 0) return null;
	return (
		<ul aria-label={label}>
			{issues.slice(0, 50).map((issue) => (
				<li key={`${issue.line}:${issue.message}`}>
					{issue.line > 0 ? `Line ${issue.line}: ` : ""}
					{issue.message}
				</li>
			))}
			{issues.length > 50 ? <li>…and {issues.length - 50} more</li> : null}
		</ul>
	);
}
