/**
 * What a keypress is and how a binding's key spec matches one (and how a burst of typed
 * characters becomes one keypress each).
 */

export type KeyEvent = {
	input: string;
	upArrow?: boolean;
	downArrow?: boolean;
	leftArrow?: boolean;
	rightArrow?: boolean;
	pageUp?: boolean;
	pageDown?: boolean;
	home?: boolean;
	end?: boolean;
	return?: boolean;
	escape?: boolean;
	tab?: boolean;
	backspace?: boolean;
	delete?: boolean;
	shift?: boolean;
	ctrl?: boolean;
	meta?: boolean;
};

type Special =
	| 'upArrow'
	| 'downArrow'
	| 'leftArrow'
	| 'rightArrow'
	| 'pageUp'
	| 'pageDown'
	| 'home'
	| 'end'
	| 'return'
	| 'escape'
	| 'tab'
	| 'backspace'
	| 'delete';

/**
 * One way to press a binding: a special key, a character (with or without Ctrl), or `typed`:
 * any text typed without Ctrl or Meta (the help overlay's query).
 */
export type KeySpec = {
	input?: string;
	ctrl?: boolean;
	shift?: boolean;
	special?: Special;
	/** Matches `input` whatever Ctrl says. */
	anyCtrl?: boolean;
	typed?: boolean;
};

export function keyMatches(spec: KeySpec, key: KeyEvent): boolean {
	if (spec.special) {
		if (!key[spec.special]) {
			return false;
		}

		return spec.special === 'tab' ? Boolean(spec.shift) === Boolean(key.shift) : true;
	}

	if (spec.typed) {
		return Boolean(key.input) && !key.ctrl && !key.meta;
	}

	if (!spec.anyCtrl && Boolean(spec.ctrl) !== Boolean(key.ctrl)) {
		return false;
	}

	return spec.input === key.input;
}

/** Keys typed faster than a read arrive together (Ink hands them over as one "paste"): one keypress each. */
export function splitBurst(key: KeyEvent): KeyEvent[] {
	return key.input.length > 1 && !key.ctrl && !key.meta ? [...key.input].map(ch => ({input: ch})) : [key];
}
