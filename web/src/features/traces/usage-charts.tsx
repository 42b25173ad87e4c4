import type { ReactElement } from "react";
import { Bar, BarChart, CartesianGrid, Legend, Line, LineChart, ResponsiveContainer, Tooltip, XAxis, YAxis } from "recharts";
import { formatCost, type Usage } from "./trace-queries";

/**
 * The usage charts (recharts, in this chunk only). Readable without colour: every series has its
 * own fill pattern or line dash and marker, and is named in the legend and the tooltip.
 */

const COLOURS = ["#1d4ed8", "#b45309", "#047857", "#7c3aed", "#be123c", "#0e7490"];
const PATTERNS = ["solid", "diagonal", "dots", "cross", "horizontal", "vertical"] as const;
const DASHES = ["", "6 3", "2 3", "10 4 2 4"];

function Patterns() {
	return (
		<defs>
			{COLOURS.map((colour, index) => (
				<pattern key={colour} id={`usage-pattern-${index}`} width="8" height="8" patternUnits="userSpaceOnUse">
					<rect width="8" height="8" fill={colour} opacity={PATTERNS[index] === "solid" ? 1 : 0.35} />
					{PATTERNS[index] === "diagonal" ? <path d="M0 8 L8 0" stroke={colour} strokeWidth="2" /> : null}
					{PATTERNS[index] === "dots" ? <circle cx="4" cy="4" r="1.8" fill={colour} /> : null}
					{PATTERNS[index] === "cross" ? <path d="M0 0 L8 8 M8 0 L0 8" stroke={colour} strokeWidth="1.5" /> : null}
					{PATTERNS[index] === "horizontal" ? <path d="M0 4 L8 4" stroke={colour} strokeWidth="2" /> : null}
					{PATTERNS[index] === "vertical" ? <path d="M4 0 L4 8" stroke={colour} strokeWidth="2" /> : null}
				</pattern>
			))}
		</defs>
	);
}

const fill = (index: number) => `url(#usage-pattern-${index % COLOURS.length})`;
const stroke = (index: number) => COLOURS[index % COLOURS.length];
const shortDay = (day: string) => day.slice(5);

function Chart({ title, summary, children }: { title: string; summary: string; children: ReactElement }) {
	return (
		<figure className="chart card">
			<figcaption>
				<h2 className="chart-title">{title}</h2>
			</figcaption>
			<div role="img" aria-label={`${title}: ${summary}`}>
				<ResponsiveContainer width="100%" height={240}>
					{children}
				</ResponsiveContainer>
			</div>
		</figure>
	);
}

export default function UsageCharts({ usage }: { usage: Usage }) {
	const total = (pick: (day: Usage["days"][number]) => number) => usage.days.reduce((sum, day) => sum + pick(day), 0);
	const assistants = Array.from(new Map(usage.byAssistant.map((row) => [row.assistantId ?? "", row.assistantName ?? "No assistant"])).entries());
	const costByAssistant = usage.days.map((day) => {
		const row: Record<string, string | number> = { day: day.day };
		for (const [id] of assistants) row[id || "none"] = (usage.byAssistant.find((entry) => entry.day === day.day && (entry.assistantId ?? "") === id)?.costMicroUsd ?? 0) / 1_000_000;
		return row;
	});
	return (
		<div className="charts">
			<Chart title="Requests and errors per day" summary={`${total((day) => day.requests)} requests, ${total((day) => day.errors)} errors`}>
				<BarChart data={usage.days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
					<Patterns />
					<CartesianGrid strokeDasharray="3 3" vertical={false} />
					<XAxis dataKey="day" tickFormatter={shortDay} />
					<YAxis allowDecimals={false} width={40} />
					<Tooltip />
					<Legend />
					<Bar dataKey="requests" name="Requests" fill={fill(0)} stroke={stroke(0)} isAnimationActive={false} />
					<Bar dataKey="errors" name="Errors" fill={fill(4)} stroke={stroke(4)} isAnimationActive={false} />
				</BarChart>
			</Chart>
			<Chart title="Tokens per day" summary={`${total((day) => day.inputTokens)} input and ${total((day) => day.outputTokens)} output tokens`}>
				<BarChart data={usage.days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
					<Patterns />
					<CartesianGrid strokeDasharray="3 3" vertical={false} />
					<XAxis dataKey="day" tickFormatter={shortDay} />
					<YAxis allowDecimals={false} width={56} />
					<Tooltip />
					<Legend />
					<Bar dataKey="inputTokens" name="Input tokens" stackId="tokens" fill={fill(0)} stroke={stroke(0)} isAnimationActive={false} />
					<Bar dataKey="outputTokens" name="Output tokens" stackId="tokens" fill={fill(1)} stroke={stroke(1)} isAnimationActive={false} />
				</BarChart>
			</Chart>
			<Chart title="Cost per day, by assistant" summary={`${formatCost(total((day) => day.costMicroUsd))} in all`}>
				<BarChart data={costByAssistant} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
					<Patterns />
					<CartesianGrid strokeDasharray="3 3" vertical={false} />
					<XAxis dataKey="day" tickFormatter={shortDay} />
					<YAxis width={64} tickFormatter={(value: number) => `$${value}`} />
					<Tooltip formatter={(value) => formatCost(Number(value) * 1_000_000)} />
					<Legend />
					{assistants.map(([id, name], index) => (
						<Bar key={id || "none"} dataKey={id || "none"} name={name} stackId="cost" fill={fill(index)} stroke={stroke(index)} isAnimationActive={false} />
					))}
				</BarChart>
			</Chart>
			<Chart title="Latency percentiles per day (ms)" summary="median, 95th and 99th percentile latency">
				<LineChart data={usage.days} margin={{ top: 8, right: 8, bottom: 0, left: 0 }}>
					<CartesianGrid strokeDasharray="3 3" vertical={false} />
					<XAxis dataKey="day" tickFormatter={shortDay} />
					<YAxis width={56} />
					<Tooltip />
					<Legend />
					<Line dataKey="latencyP50Ms" name="p50 (median)" stroke={stroke(0)} strokeDasharray={DASHES[0]} dot={{ r: 3 }} connectNulls isAnimationActive={false} />
					<Line dataKey="latencyP95Ms" name="p95" stroke={stroke(1)} strokeDasharray={DASHES[1]} dot={{ r: 4, strokeWidth: 2, fill: "#fff" }} connectNulls isAnimationActive={false} />
					<Line dataKey="latencyP99Ms" name="p99" stroke={stroke(4)} strokeDasharray={DASHES[2]} dot={{ r: 3, fill: stroke(4) }} connectNulls isAnimationActive={false} />
				</LineChart>
			</Chart>
		</div>
	);
}
