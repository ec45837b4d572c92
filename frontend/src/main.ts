import { mount } from 'svelte';
import App from './App.svelte';
import 'katex/dist/katex.min.css';
import './app.css';
import * as api from './lib/gen/api.gen';
import { setStorageFolder } from './lib/storage';
import { startTheme } from './lib/theme';
import { startTooltips } from './lib/tooltips';

// The UI's kept state is per data folder (lib/storage.ts): the folder is
// known before anything reads it, the theme included.
const app = api
  .Status()
  .then((s) => s.data_dir)
  .catch(() => '')
  .then((dir) => {
    setStorageFolder(dir);
    startTheme();
    startTooltips();
    return mount(App, { target: document.getElementById('app')! });
  });

export default app;
