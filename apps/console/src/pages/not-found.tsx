import { linkTo } from '../router';

/** An address under /console/ that names no page: said plainly, with the way back. */
export function NotFoundPage() {
  return (
    <section aria-labelledby="notfound-h" data-testid="not-found">
      <h1 id="notfound-h">Page not found</h1>
      <p class="lead">
        There is no console page at <span class="mono wrap">{location.pathname}</span>.
      </p>
      <p>
        <a {...linkTo('home')}>Go to Home</a>
      </p>
    </section>
  );
}
