import { z } from "../zod";

/**
 * Fields many use cases' inputs share, described for whoever fills them in (a model choosing
 * tool arguments, a person reading the API reference). The MCP tools, the operator CLI and the
 * management API all take them from here.
 */
export { workspaceId } from "./fields";
export const assistantSlug = z.string().min(1).max(63).describe("The assistant's slug, e.g. 'support-bot' (list_assistants)");
export const environmentSlug = z.string().min(1).max(63).describe("An environment slug, e.g. 'production' or 'staging' (list_environments)");

/** What a new assistant's or environment's slug must look like (callers put it in URLs). */
export const SLUG_PATTERN = /^[a-z0-9][a-z0-9-]{0,62}$/;
export const SLUG_ISSUE = "Lowercase letters, digits and dashes, at most 63 characters";
