import { queryOptions } from "@tanstack/react-query";
import type { z } from "zod";
import type { TAssistantConfig, ZAssistantDetails, ZAssistantListEntry, ZAssistantVersion, ZDeploymentHistoryEntry, ZEnvironment } from "../../../../contract/management";
import { managementApi, unwrap } from "../../api/management-client";

export type AssistantConfig = TAssistantConfig;
export type AssistantListEntry = z.infer<typeof ZAssistantListEntry>;
export type AssistantDetails = z.infer<typeof ZAssistantDetails>;
export type AssistantVersion = z.infer<typeof ZAssistantVersion>;
export type DeploymentHistoryEntry = z.infer<typeof ZDeploymentHistoryEntry>;
export type Environment = z.infer<typeof ZEnvironment>;

/** Every query key of one workspace's assistants starts with this, so a change refreshes them together. */
export const assistantsKey = (workspaceId: string) => ["workspaces", workspaceId, "assistants"] as const;

export const assistantListQuery = (workspaceId: string, includeArchived: boolean) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), "list", { includeArchived }],
		queryFn: async () => unwrap(await managementApi.assistants.listAssistants({ params: { workspaceId }, query: { includeArchived } })).data,
	});

export const assistantQuery = (workspaceId: string, slug: string) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), slug, "details"],
		queryFn: async () => unwrap(await managementApi.assistants.getAssistant({ params: { workspaceId, slug } })),
	});

export const draftQuery = (workspaceId: string, slug: string) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), slug, "draft"],
		queryFn: async () => unwrap(await managementApi.assistants.getAssistantDraft({ params: { workspaceId, slug } })),
		// The editor holds its own copy; refetching underneath it would only confuse.
		staleTime: Number.POSITIVE_INFINITY,
		refetchOnWindowFocus: false,
	});

export const versionsQuery = (workspaceId: string, slug: string) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), slug, "versions"],
		queryFn: async () => unwrap(await managementApi.assistants.listAssistantVersions({ params: { workspaceId, slug }, query: { limit: 100 } })).data,
	});

export const versionQuery = (workspaceId: string, slug: string, version: number) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), slug, "versions", version],
		queryFn: async () => unwrap(await managementApi.assistants.getAssistantVersion({ params: { workspaceId, slug, version } })),
		// Versions never change once frozen.
		staleTime: Number.POSITIVE_INFINITY,
	});

export const deploymentsQuery = (workspaceId: string, slug: string) =>
	queryOptions({
		queryKey: [...assistantsKey(workspaceId), slug, "deployments"],
		queryFn: async () => unwrap(await managementApi.assistants.listDeployments({ params: { workspaceId, slug }, query: { limit: 100 } })).data,
	});

export const providersQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "assistant-providers"],
		queryFn: async () => unwrap(await managementApi.assistants.listAssistantProviders({ params: { workspaceId } })).data,
	});

export const environmentsKey = (workspaceId: string) => ["workspaces", workspaceId, "environments"] as const;

export const environmentsQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: environmentsKey(workspaceId),
		queryFn: async () => unwrap(await managementApi.environments.listEnvironments({ params: { workspaceId } })).data,
	});

export const knowledgeSourcesQuery = (workspaceId: string) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "knowledge-sources"],
		queryFn: async () => unwrap(await managementApi.knowledgeSources.listKnowledgeSources({ params: { workspaceId }, query: { limit: 100 } })),
	});

export const traceQuery = (workspaceId: string, traceId: string) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "traces", traceId],
		queryFn: async () => unwrap(await managementApi.traces.getTrace({ params: { workspaceId, traceId } })),
		staleTime: Number.POSITIVE_INFINITY,
	});
