/**
 * The TUI's root: the colour theme around the live screen.
 */
import type React from 'react';
import type {AppProps} from './app-props.js';
import {Screen} from './screen/screen.js';
import {COLOR_THEME, MONO_THEME, ThemeContext} from './theme.js';

export type {AppProps} from './app-props.js';
export type {LiveSource} from './sources/live-source.js';

export function App(props: AppProps): React.ReactElement {
	const theme = props.color === false ? MONO_THEME : COLOR_THEME;
	return (
		<ThemeContext.Provider value={theme}>
			<Screen {...props} />
		</ThemeContext.Provider>
	);
}
