import type { ReactNode } from "react";

/** A data table with a caption (its accessible name); scrolls sideways on narrow screens instead of overflowing the page. */
export function Table({ caption, captionHidden = true, head, children }: { caption: string; captionHidden?: boolean; head: ReactNode; children: ReactNode }) {
	return (
		<div className="table-wrap">
			<table className="table">
				<caption className={captionHidden ? "visually-hidden" : "table-caption"}>{caption}</caption>
				<thead>
					<tr>{head}</tr>
				</thead>
				<tbody>{children}</tbody>
			</table>
		</div>
	);
}
