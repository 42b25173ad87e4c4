import { z } from "zod";

/** Argument schemas shared by many tools, each described for the model choosing values. */
export const workspaceId = z.string().min(1).max(100).describe("The workspace to act on (an id from list_workspaces)");
export const organizationId = z
	.string()
	.min(1)
	.max(100)
	.optional()
	.describe("The organization to act on (an id from list_organizations); required only for a connection to all of the user's organizations");
export const assistantSlug = z.string().min(1).max(63).describe("The assistant's slug, e.g. 'support-bot' (list_assistants)");
export const environmentSlug = z.string().min(1).max(63).describe("An environment slug, e.g. 'production' or 'staging' (list_environments)");
export const timestamp = z.string().describe("ISO-8601 UTC");

export const deleted = { deleted: z.literal(true).describe("Always true: it is gone") };
