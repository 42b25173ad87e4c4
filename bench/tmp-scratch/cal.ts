import { calibrateMachine, describeCalibration } from "../machine-calibration";
console.log(describeCalibration(await calibrateMachine(process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres")));
