/*
 * kvplan/kvplan.h — umbrella header of libkvplan.
 * Include this one; the family headers below are the whole public API.
 */
#ifndef KVPLAN_KVPLAN_H
#define KVPLAN_KVPLAN_H

/* KVP_VERSION_MAJOR/MINOR/PATCH/STRING and kvp_version(), generated from the
 * one project(VERSION) in CMakeLists.txt. */
#include "kvplan/version.h"
/* Older spelling of KVP_VERSION_STRING. */
#define KVPLAN_VERSION_STRING KVP_VERSION_STRING

#include "kvplan/error.h"
#include "kvplan/types.h"
#include "kvplan/model.h"
#include "kvplan/cost.h"
#include "kvplan/memory.h"
#include "kvplan/units.h"
#include "kvplan/gpu.h"
#include "kvplan/estimate.h"
#include "kvplan/probe.h"
#include "kvplan/safetensors.h"
#include "kvplan/plan.h"
#include "kvplan/policy.h"
#include "kvplan/startup.h"
#include "kvplan/local.h"
#include "kvplan/pool.h"
#include "kvplan/sim.h"
#include "kvplan/report.h"
#include "kvplan/deploy.h"
#include "kvplan/fit.h"
#include "kvplan/sweep.h"
#include "kvplan/render.h"
#include "kvplan/json.h"

#endif
