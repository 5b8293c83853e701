/**
 * Which rows of the `?` help show in a body of `height` rows (its title first): from `top`, kept
 * within the rows, with a line saying how many are above and below when they do not all fit
 * (issue #28 point 6: the help had more keys than rows at 80x24 and could not scroll). Pure.
 */
export type HelpView = {top: number; shown: number; above: number; below: number};

export function helpView(rows: number, height: number, scroll: number): HelpView {
	const room = Math.max(1, height - 1);
	if (rows <= room) {
		return {top: 0, shown: rows, above: 0, below: 0};
	}

	// One row says what is above and below.
	const shown = Math.max(1, room - 1);
	const top = Math.min(Math.max(0, scroll), rows - shown);
	return {top, shown, above: top, below: rows - top - shown};
}
