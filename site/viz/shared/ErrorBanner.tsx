// Shows an error from the core (an attn::Error surfaced as a JS Error) without stopping the page.
export function ErrorBanner({ message, onDismiss }: { message: string | null; onDismiss?: () => void }) {
  if (!message) return null;
  return (
    <div class="error-banner" role="alert">
      <span>{message}</span>
      {onDismiss && <button type="button" onClick={onDismiss} aria-label="Dismiss">×</button>}
    </div>
  );
}
