import { c } from "./common";
import { healthContract } from "./health";
import { knowledgeContract } from "./knowledge";
import { runtimeContract } from "./runtime";

export const contract = c.router({
	health: healthContract,
	runtime: runtimeContract,
	knowledge: knowledgeContract,
});
export type Contract = typeof contract;

export * from "./common";
export * from "./errors";
export * from "./schemas/common";
export * from "./schemas/knowledge";
export * from "./schemas/runtime";
export { healthContract, knowledgeContract, runtimeContract };
