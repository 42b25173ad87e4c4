import { z } from "../zod";

/**
 * Fields many use cases' inputs share, described for whoever fills them in (a model choosing
 * arguments, a person reading --help). Every input schema under contract/inputs/ must stay
 * portable for MCP clients (server/mcp/tools/fields.ts says how); a field used twice in one schema
 * must be a fresh instance, so these are used at most once per schema.
 */
export const workspaceId = z.string().min(1).max(100).describe("The workspace to act on (an id from list_workspaces)");

/** Optional: an MCP connection bound to one organization acts on it; the dashboard names it in the path, the CLI with a flag. */
export const organizationId = z
	.string()
	.min(1)
	.max(100)
	// Kept by `.required()` (the dashboard's paths name the organization), which unwraps the optional.
	.describe("The organization to act on")
	.optional()
	.describe("The organization to act on (an id from list_organizations); required only for a connection to all of the user's organizations");

/** The roles of an organization, lowest last; permissions.ts (server) decides what each may do. */
export const MEMBER_ROLES = ["owner", "admin", "member", "viewer"] as const;
export type MemberRoleName = (typeof MEMBER_ROLES)[number];

/**
 * The sign-in name's one rule (the operator's user create and invitations); not zod's `.email()`,
 * whose `format: email` some MCP clients' schema dialects refuse. Quadratic at worst: test it on
 * at most 320 characters.
 */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
