/**
 * The one Text the TUI renders with: Ink's, with every string among its children made safe first
 * (text/sanitize.ts). A title, key, file name or command line that holds ESC, a C1 control, CR/LF
 * or a bidi override is shown as a visible escape (`\x1b[2J`) instead of clearing the screen or
 * splitting a row. It works on the data, before Ink styles it, so hfx's own colours are untouched.
 * test/build/terminal-sinks.test.ts fails when a file under source/ui takes Text from Ink directly.
 */
import React from 'react';
import {Text as InkText, type TextProps} from 'ink';
import {safeText} from '../../text/sanitize.js';

function safeChild(child: React.ReactNode): React.ReactNode {
	if (typeof child === 'string') {
		return safeText(child);
	}

	return Array.isArray(child) ? child.map(safeChild) : child;
}

export function Text(props: TextProps): React.ReactElement {
	const {children, ...rest} = props;
	// Spread, not an array: the children stay positional (no key needed), as the caller wrote them.
	return Array.isArray(children)
		? React.createElement(InkText, rest, ...children.map(safeChild))
		: React.createElement(InkText, rest, safeChild(children));
}
