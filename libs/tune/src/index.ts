export type { Param, RangeParam, ChoiceParam, ParamSet, ParamValue } from './parameter.js';
export { axisBounds, fromAxis, toAxis } from './parameter.js';
export { SpaceSchema, SpaceError, parseSpace, type Space, type SpaceFile, type MetricRef, type Objective, type Constraint } from './space.schema.js';
export { readMetric, metricLabel, type MetricReading } from './metric.js';
export { paretoFront, type ParetoPoint } from './pareto.js';
export { runStudy, violationOf, meanMeasure, bestSoFar, bestTrials, type StudySettings, type ConstraintBound, type TrialMeasure, type TrialPlan, type Trial, type Evaluate } from './study.js';
export { TpeSampler, belowCount, rampWeights, DEFAULT_CANDIDATES, DEFAULT_STARTUP_TRIALS, type TpeSettings, type Observed } from './tpe/tpe.sampler.js';
export { rankTrials, nonDominationRanks, dominates, type Direction } from './tpe/ranking.js';
export { ParzenEstimator } from './tpe/parzen-estimator.js';
