import type { z } from "zod";
import { ZListAssistantsInput } from "../../../contract/inputs/assistants";
import { AssistantSchema } from "../../db/entities";
import { parseInput } from "../../shared/parse-input";
import { authorizeWorkspace } from "../access/authorize";
import type { UseCaseContext } from "../platform-services";
import { type AssistantView, presentAssistant } from "./present-assistant";

export interface AssistantListEntry extends AssistantView {
	/** What each environment serves now, by environment slug. */
	deployments: { environment: string; version: number }[];
}

/** The workspace's assistants by slug, with what each environment serves; archived ones only when asked for. */
export async function listAssistants(context: UseCaseContext, rawInput: z.input<typeof ZListAssistantsInput>): Promise<AssistantListEntry[]> {
	const input = parseInput(ZListAssistantsInput, rawInput);
	const workspaceId = await authorizeWorkspace(context, "assistants:read", input.workspaceId);
	const assistants = await context.em.find(AssistantSchema, input.includeArchived ? { workspace: workspaceId } : { workspace: workspaceId, archivedAt: null }, {
		orderBy: { slug: "asc" },
		limit: 1000,
	});
	const rows: { assistant_id: string; environment: string; version: number }[] =
		assistants.length === 0
			? []
			: await context.em.getConnection().execute(
					`select d.assistant_id, e.slug as environment, v.version
					 from deployments d join environments e on e.id = d.environment_id join assistant_versions v on v.id = d.version_id
					 where d.workspace_id = ? order by e.slug`,
					[workspaceId],
				);
	const served = new Map<string, { environment: string; version: number }[]>();
	for (const row of rows) served.set(row.assistant_id, [...(served.get(row.assistant_id) ?? []), { environment: row.environment, version: row.version }]);
	return assistants.map((assistant) => ({ ...presentAssistant(assistant), deployments: served.get(assistant.id) ?? [] }));
}
