import { Module } from '@nestjs/common';
import { StorageController } from './storage.controller';

@Module({ controllers: [StorageController] })
export class GatewayStorageModule {}
