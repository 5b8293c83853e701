/**
 * Semantic colours from the 16 ANSI colours (so the terminal's theme applies). With NO_COLOR or
 * --no-color every style is dropped; meaning never depends on colour alone (glyphs and words
 * carry it: ✗, ROLLBACK RISK, the › cursor).
 */
import {createContext, useContext} from 'react';

export type Theme = {
	color: boolean;
	accent: string | undefined;
	danger: string | undefined;
	warn: string | undefined;
	ok: string | undefined;
	muted: string | undefined;
	user: string | undefined;
	assistant: string | undefined;
	tool: string | undefined;
	highlight: string | undefined;
};

export const COLOR_THEME: Theme = {
	color: true,
	accent: 'cyan',
	danger: 'red',
	warn: 'yellow',
	ok: 'green',
	muted: 'gray',
	user: 'cyan',
	assistant: 'green',
	tool: 'magenta',
	highlight: 'yellow',
};

export const MONO_THEME: Theme = {
	color: false,
	accent: undefined,
	danger: undefined,
	warn: undefined,
	ok: undefined,
	muted: undefined,
	user: undefined,
	assistant: undefined,
	tool: undefined,
	highlight: undefined,
};

export const ThemeContext = createContext<Theme>(COLOR_THEME);

export function useTheme(): Theme {
	return useContext(ThemeContext);
}
