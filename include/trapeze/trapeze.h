// The whole public API of trapeze.
#pragma once

#include "trapeze/autoschedule.h"
#include "trapeze/autotune.h"
#include "trapeze/boundary.h"
#include "trapeze/buffer.h"
#include "trapeze/dsl.h"
#include "trapeze/error.h"
#include "trapeze/explain.h"
#include "trapeze/explain_schedule.h"
#include "trapeze/image_io.h"
#include "trapeze/pipeline.h"
#include "trapeze/runtime.h"
#include "trapeze/text_form.h"
#include "trapeze/version.h"
