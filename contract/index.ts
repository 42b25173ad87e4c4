import { c } from "./common";
import { healthContract } from "./health";
import { knowledgeContract } from "./knowledge";
import { openAiCompatibleContract } from "./openai-compatible";
import { runtimeContract } from "./runtime";

export const contract = c.router({
	health: healthContract,
	runtime: runtimeContract,
	knowledge: knowledgeContract,
	openAiCompatible: openAiCompatibleContract,
});
export type Contract = typeof contract;

export * from "./common";
export * from "./errors";
export * from "./schemas/common";
export * from "./schemas/knowledge";
export * from "./schemas/runtime";
export * from "./schemas/openai-compatible";
export { healthContract, knowledgeContract, openAiCompatibleContract, runtimeContract };
