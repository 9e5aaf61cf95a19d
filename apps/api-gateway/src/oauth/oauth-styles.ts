/**
 * The stylesheet of the authorization pages, served from the gateway itself: the CSP allows styles
 * from 'self' only, so nothing inline, and the pages need no build step.
 */
export const OAUTH_STYLESHEET = `
*, *::before, *::after { box-sizing: border-box; }
html { -webkit-text-size-adjust: 100%; }
body {
  margin: 0; min-height: 100vh; background: #f3f4f6; color: #111827;
  font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  display: flex; align-items: flex-start; justify-content: center; padding: 48px 16px;
}
main {
  width: 100%; max-width: 440px; background: #fff; border: 1px solid #e5e7eb; border-radius: 12px;
  box-shadow: 0 1px 3px rgba(0, 0, 0, 0.06); padding: 32px;
}
.brand { font-size: 14px; font-weight: 600; color: #4b5563; letter-spacing: 0.02em; margin: 0 0 20px; }
h1 { font-size: 22px; line-height: 1.3; margin: 0 0 8px; }
p { margin: 0 0 16px; }
.muted { color: #6b7280; font-size: 14px; }
.destination {
  background: #f9fafb; border: 1px solid #e5e7eb; border-radius: 8px; padding: 10px 12px;
  font-size: 14px; margin: 0 0 20px; overflow-wrap: anywhere;
}
.destination strong { display: block; font-size: 15px; }
form { margin: 0; }
fieldset { border: 0; padding: 0; margin: 0 0 20px; }
legend { padding: 0; }
legend, label.field { display: block; font-weight: 600; font-size: 14px; margin: 0 0 6px; }
input[type="email"], input[type="password"], input[type="text"], select {
  display: block; width: 100%; font: inherit; padding: 9px 11px; border: 1px solid #d1d5db;
  border-radius: 8px; background: #fff; color: inherit; margin: 0 0 16px;
}
input:focus, select:focus, button:focus { outline: 2px solid #2563eb; outline-offset: 1px; }
.check { display: flex; gap: 10px; align-items: flex-start; margin: 0 0 8px; font-size: 15px; }
.check input { margin-top: 4px; }
.check small { color: #6b7280; display: block; }
.limit { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; }
.limit select, .limit input { margin: 0; }
.error {
  background: #fef2f2; border: 1px solid #fecaca; color: #991b1b; border-radius: 8px;
  padding: 10px 12px; margin: 0 0 20px; font-size: 14px;
}
.actions { display: flex; gap: 12px; margin-top: 24px; }
button {
  flex: 1; font: inherit; font-weight: 600; padding: 10px 16px; border-radius: 8px; cursor: pointer;
  border: 1px solid #d1d5db; background: #fff; color: #111827;
}
button.primary { background: #2563eb; border-color: #2563eb; color: #fff; }
.account { font-size: 14px; color: #374151; margin: 0 0 20px; }
@media (max-width: 480px) {
  body { padding: 16px 12px; }
  main { padding: 22px 18px; }
  .limit { grid-template-columns: 1fr; }
  .actions { flex-direction: column-reverse; }
}
`;
