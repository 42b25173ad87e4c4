import type { Assistant, AssistantVersion } from "../../db/entities";

export interface AssistantView {
	id: string;
	slug: string;
	name: string;
	description: string | null;
	archived: boolean;
	archivedAt: string | null;
	createdAt: string;
	updatedAt: string;
}

export function presentAssistant(assistant: Assistant): AssistantView {
	return {
		id: assistant.id,
		slug: assistant.slug,
		name: assistant.name,
		description: assistant.description,
		archived: assistant.archivedAt !== null,
		archivedAt: assistant.archivedAt?.toISOString() ?? null,
		createdAt: assistant.createdAt.toISOString(),
		updatedAt: assistant.updatedAt.toISOString(),
	};
}

export interface AssistantVersionView {
	id: string;
	version: number;
	note: string | null;
	createdByUserId: string | null;
	createdAt: string;
}

export function presentAssistantVersion(version: AssistantVersion): AssistantVersionView {
	return { id: version.id, version: version.version, note: version.note, createdByUserId: version.createdByUser, createdAt: version.createdAt.toISOString() };
}
