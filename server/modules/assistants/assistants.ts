import type { EntityManager } from "@mikro-orm/postgresql";
import { ZSlug } from "../../../contract/schemas/runtime";
import {
	type Assistant,
	type AssistantConfig,
	AssistantDraftSchema,
	AssistantSchema,
	AssistantVersionSchema,
	DeploymentEventSchema,
	DeploymentSchema,
	EnvironmentSchema,
} from "../../db/entities";
import { AppError } from "../../shared/app-error";
import { newId } from "../../shared/ids";
import { DEFAULT_ASSISTANT_CONFIG, parseAssistantConfig } from "./assistant-config";
import { DEPLOYMENT_CHANNEL } from "./deployment-cache";

/**
 * Assistant lifecycle used by the operator CLI (and later MCP and the dashboard): create with a
 * draft, edit the draft, freeze it as a numbered version, deploy a version to an environment.
 */

async function findAssistant(em: EntityManager, workspaceId: string, slug: string): Promise<Assistant> {
	const assistant = await em.findOne(AssistantSchema, { workspace: workspaceId, slug });
	if (!assistant) throw new AppError("ASSISTANT_NOT_FOUND", `No assistant '${slug}' in this workspace`);
	return assistant;
}

export async function createAssistant(
	em: EntityManager,
	input: { workspaceId: string; slug: string; name: string; description?: string | null; createdByUserId?: string | null },
): Promise<{ id: string; slug: string; name: string }> {
	if (!ZSlug.safeParse(input.slug).success) throw AppError.validation([{ field: "slug", issue: "Lowercase letters, digits and dashes, at most 63 characters" }]);
	const name = input.name.trim();
	if (!name) throw AppError.validation([{ field: "name", issue: "Required" }]);
	if (await em.findOne(AssistantSchema, { workspace: input.workspaceId, slug: input.slug })) {
		throw AppError.validation([{ field: "slug", issue: `An assistant '${input.slug}' already exists in this workspace` }]);
	}
	const id = newId("asst");
	em.create(AssistantSchema, { id, workspace: input.workspaceId, slug: input.slug, name, description: input.description ?? null, archivedAt: null });
	em.create(AssistantDraftSchema, { id: newId("draft"), assistant: id, config: DEFAULT_ASSISTANT_CONFIG, updatedByUser: input.createdByUserId ?? null });
	await em.flush();
	return { id, slug: input.slug, name };
}

/** Merges `patch` into the draft; the whole result must be a valid config. */
export async function updateAssistantDraft(
	em: EntityManager,
	input: { workspaceId: string; slug: string; patch: Partial<AssistantConfig>; updatedByUserId?: string | null },
): Promise<{ assistantId: string; config: AssistantConfig }> {
	const assistant = await findAssistant(em, input.workspaceId, input.slug);
	const draft = await em.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
	draft.config = parseAssistantConfig({ ...draft.config, ...input.patch });
	draft.updatedByUser = input.updatedByUserId ?? null;
	await em.flush();
	return { assistantId: assistant.id, config: draft.config };
}

/** Freezes the draft as the next version number; versions are never changed afterwards. */
export async function createAssistantVersion(
	em: EntityManager,
	input: { workspaceId: string; slug: string; note?: string | null; createdByUserId?: string | null },
): Promise<{ id: string; version: number; config: AssistantConfig }> {
	return em.transactional(async (tx) => {
		const assistant = await findAssistant(tx, input.workspaceId, input.slug);
		const draft = await tx.findOneOrFail(AssistantDraftSchema, { assistant: assistant.id });
		// Serialises concurrent version creation per assistant; the unique (assistant, version) is the backstop.
		await tx.getConnection().execute("select id from assistants where id = ? for update", [assistant.id], "all", tx.getTransactionContext());
		const rows: { max: number | null }[] = await tx
			.getConnection()
			.execute("select max(version) as max from assistant_versions where assistant_id = ?", [assistant.id], "all", tx.getTransactionContext());
		const version = (rows[0]?.max ?? 0) + 1;
		const id = newId("ver");
		const config = parseAssistantConfig(draft.config);
		tx.create(AssistantVersionSchema, { id, workspace: input.workspaceId, assistant: assistant.id, version, config, note: input.note ?? null, createdByUser: input.createdByUserId ?? null });
		return { id, version, config };
	});
}

async function changeDeployment(
	em: EntityManager,
	input: { workspaceId: string; slug: string; environment: string; action: "publish" | "rollback"; version?: number; actorUserId?: string | null },
): Promise<{ assistantId: string; environment: string; version: number; previousVersion: number | null }> {
	const result = await em.transactional(async (tx) => {
		const assistant = await findAssistant(tx, input.workspaceId, input.slug);
		const environment = await tx.findOne(EnvironmentSchema, { workspace: input.workspaceId, slug: input.environment });
		if (!environment) throw new AppError("DEPLOYMENT_NOT_FOUND", `No environment '${input.environment}' in this workspace`);
		const deployment = await tx.findOne(DeploymentSchema, { assistant: assistant.id, environment: environment.id });
		let target: { id: string; version: number } | null;
		if (input.action === "publish") {
			target = await tx.findOne(AssistantVersionSchema, { assistant: assistant.id, version: input.version ?? -1 }, { fields: ["id", "version"] });
			if (!target) throw AppError.validation([{ field: "version", issue: `Assistant '${input.slug}' has no version ${input.version}` }]);
		} else {
			if (!deployment) throw new AppError("DEPLOYMENT_NOT_FOUND", `Assistant '${input.slug}' is not deployed to '${input.environment}'`);
			const last = await tx.findOne(DeploymentEventSchema, { assistant: assistant.id, environment: environment.id }, { orderBy: { createdAt: "desc", id: "desc" } });
			if (!last?.previousVersion) throw new AppError("INVALID_STATE", `Assistant '${input.slug}' has no earlier version deployed to '${input.environment}'`);
			target = await tx.findOneOrFail(AssistantVersionSchema, { id: last.previousVersion }, { fields: ["id", "version"] });
		}
		const previousVersionId = deployment?.version ?? null;
		if (deployment) {
			deployment.version = target.id;
			deployment.deployedByUser = input.actorUserId ?? null;
		} else {
			tx.create(DeploymentSchema, { id: newId("dep"), workspace: input.workspaceId, assistant: assistant.id, environment: environment.id, version: target.id, deployedByUser: input.actorUserId ?? null });
		}
		tx.create(DeploymentEventSchema, {
			id: newId("depev"),
			workspace: input.workspaceId,
			assistant: assistant.id,
			environment: environment.id,
			version: target.id,
			previousVersion: previousVersionId,
			action: input.action,
			actorUser: input.actorUserId ?? null,
		});
		await tx.flush();
		// Sent at commit: every server process drops its cached resolution before the next call.
		await tx.getConnection().execute("select pg_notify(?, ?)", [DEPLOYMENT_CHANNEL, input.workspaceId], "all", tx.getTransactionContext());
		const previous = previousVersionId ? await tx.findOne(AssistantVersionSchema, { id: previousVersionId }, { fields: ["version"] }) : null;
		return { assistantId: assistant.id, environment: input.environment, version: target.version, previousVersion: previous?.version ?? null };
	});
	return result;
}

export function publishAssistantVersion(
	em: EntityManager,
	input: { workspaceId: string; slug: string; version: number; environment?: string; actorUserId?: string | null },
) {
	return changeDeployment(em, { ...input, environment: input.environment ?? "production", action: "publish" });
}

/** Re-deploys the version that the latest publish or rollback in that environment replaced. */
export function rollbackAssistantDeployment(em: EntityManager, input: { workspaceId: string; slug: string; environment?: string; actorUserId?: string | null }) {
	return changeDeployment(em, { ...input, environment: input.environment ?? "production", action: "rollback" });
}
