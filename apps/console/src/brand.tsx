/** The Switchboard mark (the platform sign-in page in apps/auth draws the same one). Decorative: the word beside it names the product. */
export function Mark({ size = 22 }: { size?: number }) {
  return (
    <svg class="mark" viewBox="0 0 24 24" width={size} height={size} aria-hidden="true" focusable="false">
      <rect width="24" height="24" rx="6" fill="#0b5cad" />
      <path d="M6 8h4l4 8h4" stroke="#fff" stroke-width="2" fill="none" stroke-linecap="round" stroke-linejoin="round" />
      <circle cx="6" cy="8" r="2.2" fill="#fff" />
      <circle cx="18" cy="16" r="2.2" fill="#fff" />
    </svg>
  );
}
