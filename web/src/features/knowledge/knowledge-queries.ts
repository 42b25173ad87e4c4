import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { TKnowledgeDocument, TKnowledgeSource, ZSearchResult } from "../../../../contract/management";
import { managementApi, unwrap } from "../../api/management-client";

export type KnowledgeSource = TKnowledgeSource;
export type KnowledgeDocument = TKnowledgeDocument;
export type SearchResult = z.infer<typeof ZSearchResult>;

/** Every query key of one workspace's knowledge starts with this, so a change refreshes them together. */
export const knowledgeKey = (workspaceId: string) => ["workspaces", workspaceId, "knowledge-sources"] as const;

export const sourcesQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: [...knowledgeKey(workspaceId), "list"],
		queryFn: async () => unwrap(await managementApi.knowledgeSources.listKnowledgeSources({ params: { workspaceId }, query: { limit: 100 } })).data,
	});

export const sourceQuery = (workspaceId: string, sourceId: string) =>
	queryOptions({
		queryKey: [...knowledgeKey(workspaceId), sourceId, "details"],
		queryFn: async () => unwrap(await managementApi.knowledgeSources.getKnowledgeSource({ params: { workspaceId, sourceId } })),
	});

export const documentsKey = (workspaceId: string, sourceId: string) => [...knowledgeKey(workspaceId), sourceId, "documents"] as const;

export const documentsQuery = (workspaceId: string, sourceId: string) =>
	queryOptions({
		queryKey: documentsKey(workspaceId, sourceId),
		queryFn: async () => unwrap(await managementApi.knowledgeSources.listKnowledgeDocuments({ params: { workspaceId, sourceId }, query: { limit: 100 } })).data,
	});

/** Whether ingestion still has work to do on a document: its status will change without anyone acting. */
export function isInFlight(document: KnowledgeDocument): boolean {
	return document.status === "PENDING" || document.status === "PROCESSING";
}

/** Polling while something is in flight: 500 ms, then slower while nothing changes, at most 3 s apart; none once all settled. */
export function pollDelay(unchangedPolls: number): number {
	return Math.min(500 * 1.5 ** unchangedPolls, 3000);
}
