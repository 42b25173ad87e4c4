import { z } from "../zod";
import { environmentSlug, SLUG_ISSUE, SLUG_PATTERN, workspaceId } from "./common";

/** The inputs of the environment use cases (server/modules/environments); see assistants.ts for who takes them from here. */

export const ZListEnvironmentsInput = z.object({ workspaceId }).strict();

export const ZCreateEnvironmentInput = z
	.object({
		workspaceId,
		slug: z.string().min(1).max(63).regex(SLUG_PATTERN, SLUG_ISSUE).describe("A new slug: lowercase letters, digits and dashes"),
		name: z.string().trim().min(1, "Required").max(200).describe("Display name"),
		description: z.string().max(2000).optional().describe("What the environment is for"),
	})
	.strict();

export const ZUpdateEnvironmentInput = z
	.object({
		workspaceId,
		slug: environmentSlug,
		name: z.string().trim().min(1, "Required").max(200).optional().describe("New display name"),
		description: z.string().max(2000).nullable().optional().describe("New description; null clears it"),
	})
	.strict();

export const ZDeleteEnvironmentInput = z.object({ workspaceId, slug: environmentSlug }).strict();
