-- AlterEnum
ALTER TYPE "JobStatus" ADD VALUE 'rejected';
