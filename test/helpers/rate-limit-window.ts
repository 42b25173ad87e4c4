/**
 * Rate limits count in fixed one-minute windows. A test that counts requests up to a limit starts
 * well inside one, so a window ending halfway cannot hand it a fresh allowance.
 */
export async function awayFromMinuteBoundary(marginMs = 10_000): Promise<void> {
	const intoMinute = Date.now() % 60_000;
	if (intoMinute > 60_000 - marginMs) await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinute + 100));
}
