import { mount } from 'svelte';
import { config } from 'zod';
import App from './App.svelte';
import './app.css';

// Our CSP forbids eval. Zod would otherwise probe `new Function` on first parse, which the
// browser reports as a CSP violation; jitless mode skips the probe and the compiled fast path.
config({ jitless: true });

const target = document.getElementById('app');
if (!target) throw new Error('index.html must contain <div id="app">');

export default mount(App, { target });
