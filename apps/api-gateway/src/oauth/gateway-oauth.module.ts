import { Module } from '@nestjs/common';
import { AuthorizeController } from './authorize.controller';
import { BrowserSession } from './browser-session';
import { OAuthTokenController } from './oauth-token.controller';
import { TokenRateLimitGuard } from './token-rate-limit.guard';

/** OAuth 2.0 with PKCE: the authorization pages, the token exchange and userinfo. */
@Module({
  controllers: [AuthorizeController, OAuthTokenController],
  providers: [BrowserSession, TokenRateLimitGuard],
})
export class GatewayOAuthModule {}
