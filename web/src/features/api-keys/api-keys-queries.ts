import { queryOptions } from "@tanstack/react-query";
import { managementApi, unwrap } from "../../api/management-client";

export const apiKeysQuery = (workspaceId: string, includeRevoked: boolean) =>
	queryOptions({
		queryKey: ["workspaces", workspaceId, "api-keys", { includeRevoked }],
		queryFn: async () => unwrap(await managementApi.keys.listApiKeys({ params: { workspaceId }, query: { includeRevoked: includeRevoked ? "true" : "false" } })).data,
	});

/** Every list of the workspace's keys (with or without revoked ones), to refresh after a change. */
export const apiKeysKey = (workspaceId: string) => ["workspaces", workspaceId, "api-keys"];

export const SCOPE_DESCRIPTIONS = {
	"runtime:execute": "Run generations: /runtime/execute, /runtime/stream and deployed assistants",
	"knowledge:read": "List and search knowledge sources and documents",
	"knowledge:write": "Create knowledge sources, upload and delete documents",
} as const;

export type ApiKeyScope = keyof typeof SCOPE_DESCRIPTIONS;
export const API_KEY_SCOPES = Object.keys(SCOPE_DESCRIPTIONS) as ApiKeyScope[];
