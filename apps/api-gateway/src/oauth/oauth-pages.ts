import type { ConsentContext, SpendingLimitPeriod } from '@gw/contracts';
import { html, type SafeHtml } from './html';

export const STYLESHEET_PATH = '/api/auth/assets/oauth.css';

export const LIMIT_PERIOD_LABELS: Record<SpendingLimitPeriod | 'none', string> = {
  none: 'Без лимита',
  day: 'В день',
  week: 'В неделю',
  month: 'В месяц',
  total: 'Всего',
};

const SCOPE_LABELS = {
  'user:id': ['Идентификатор пользователя', 'Передаётся всегда'],
  'user:name': ['Имя', ''],
  'user:email': ['Адрес электронной почты', ''],
} as const;

/** Who is asking and where the browser goes next: shown on both pages so the user can judge. */
export interface ApplicationView {
  appName: string | null;
  callbackUrl: string;
}

export interface LoginView extends ApplicationView {
  action: string;
  csrf: string;
  email?: string;
  error?: string;
}

/** The consent form's answers, shown again when one of them was refused. */
export interface ConsentValues {
  organizationId?: string;
  scopes: string[];
  limitPeriod: string;
  limitAmount: string;
}

export interface ConsentView extends ApplicationView {
  action: string;
  csrf: string;
  context: ConsentContext;
  values: ConsentValues;
  error?: string;
}

function page(title: string, body: SafeHtml): string {
  return html`<!doctype html>
    <html lang="ru">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title}</title>
        <link rel="stylesheet" href="${STYLESHEET_PATH}" />
      </head>
      <body>
        <main>
          <p class="brand">Model gateway</p>
          ${body}
        </main>
      </body>
    </html> `.markup;
}

function applicationName(view: ApplicationView): string {
  return view.appName ?? new URL(view.callbackUrl).host;
}

function destination(view: ApplicationView): SafeHtml {
  const url = new URL(view.callbackUrl);
  return html`<div class="destination">
    После ответа вы вернётесь на <strong>${url.origin}</strong><span class="muted">${view.callbackUrl}</span>
  </div>`;
}

function errorBox(error: string | undefined): SafeHtml {
  return error ? html`<div class="error" role="alert">${error}</div>` : html``;
}

export function loginPage(view: LoginView): string {
  return page(
    'Вход',
    html`<h1>Вход</h1>
      <p>Войдите, чтобы выдать доступ приложению «${applicationName(view)}».</p>
      ${destination(view)} ${errorBox(view.error)}
      <form method="post" action="${view.action}">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <label class="field" for="email">Электронная почта</label>
        <input
          id="email"
          type="email"
          name="email"
          autocomplete="username"
          required
          value="${view.email ?? ''}"
        />
        <label class="field" for="password">Пароль</label>
        <input id="password" type="password" name="password" autocomplete="current-password" required />
        <div class="actions"><button class="primary" type="submit">Войти</button></div>
      </form>`,
  );
}

export function consentPage(view: ConsentView): string {
  const { context, values } = view;
  const selectedOrganization = values.organizationId ?? context.organizations[0]?.id;
  return page(
    'Доступ для приложения',
    html`<h1>«${applicationName(view)}» запрашивает доступ</h1>
      <p class="account">Вы вошли как <strong>${context.user.name}</strong> (${context.user.email}).</p>
      ${destination(view)} ${errorBox(view.error)}
      <form method="post" action="${view.action}">
        <input type="hidden" name="csrf" value="${view.csrf}" />
        <label class="field" for="organizationId">Организация</label>
        <select id="organizationId" name="organizationId">
          ${context.organizations.map(
            (org) =>
              html`<option value="${org.id}" ${org.id === selectedOrganization ? html` selected` : ''}>
                ${org.name}
              </option>`,
          )}
        </select>
        <fieldset>
          <legend>Данные, которые получит приложение</legend>
          ${Object.entries(SCOPE_LABELS).map(([scope, [label, note]]) =>
            scope === 'user:id'
              ? html`<label class="check"
                  ><input type="checkbox" name="scopes" value="${scope}" checked disabled /><span
                    >${label}<small>${note}</small></span
                  ></label
                >`
              : html`<label class="check"
                  ><input
                    type="checkbox"
                    name="scopes"
                    value="${scope}"
                    ${values.scopes.includes(scope) ? html` checked` : ''}
                  /><span>${label}</span></label
                >`,
          )}
        </fieldset>
        <fieldset>
          <legend>Лимит расходов ключа, ₽</legend>
          <div class="limit">
            <select name="limitPeriod" aria-label="Период лимита">
              ${Object.entries(LIMIT_PERIOD_LABELS).map(
                ([period, label]) =>
                  html`<option value="${period}" ${period === values.limitPeriod ? html` selected` : ''}>
                    ${label}
                  </option>`,
              )}
            </select>
            <input
              type="text"
              name="limitAmount"
              inputmode="decimal"
              placeholder="Сумма, например 500"
              aria-label="Сумма лимита в рублях"
              value="${values.limitAmount}"
            />
          </div>
          <p class="muted">День, неделя и месяц считаются по календарю в UTC; «Всего» не обнуляется.</p>
        </fieldset>
        <p class="muted">Приложение получит API-ключ выбранной организации. Отозвать его можно в консоли.</p>
        <div class="actions">
          <button type="submit" name="decision" value="decline">Отказать</button>
          <button class="primary" type="submit" name="decision" value="approve">Разрешить</button>
        </div>
      </form>`,
  );
}

export function errorPage(status: number, message: string): string {
  return page(
    'Ошибка',
    html`<h1>Не удалось продолжить</h1>
      <div class="error" role="alert">${message}</div>
      <p class="muted">Код ответа ${status}. Вернитесь в приложение и начните вход заново.</p>`,
  );
}
