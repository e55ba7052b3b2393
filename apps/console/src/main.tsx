import { render } from 'preact';
import { App } from './app';
import { adoptHashRoute } from './router';

const root = document.getElementById('app');
if (root) {
  // Back from sign-in at /console/#/tools: show /console/tools.
  adoptHashRoute();
  root.textContent = '';
  render(<App />, root);
}

// Errors outside any component (a rejected promise nobody awaited) are logged, never a blank page.
addEventListener('unhandledrejection', (e) => console.error('unhandled rejection in the console', e.reason));
