import { mount } from 'svelte';
import App from './App.svelte';
import 'katex/dist/katex.min.css';
import './app.css';
import { startTheme } from './lib/theme';
import { startTooltips } from './lib/tooltips';

startTheme();
startTooltips();

const app = mount(App, { target: document.getElementById('app')! });

export default app;
