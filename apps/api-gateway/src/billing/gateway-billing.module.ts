import { Module } from '@nestjs/common';
import { AdminCreditsController } from './admin-credits.controller';
import { BalanceController } from './balance.controller';
import { HistoryController } from './history.controller';

@Module({ controllers: [BalanceController, HistoryController, AdminCreditsController] })
export class GatewayBillingModule {}
